// Hooks log through swift-log's `Logger` (`request.logger`); importing Cloudlet brings it along.
@_exported import Logging
