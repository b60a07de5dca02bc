// The host is built over the runtime core, the SQLite store and the worker pool: whoever imports it
// (the command line, an app's own server, the router tests) sees their API too.
@_exported import CloudletIsolation
@_exported import CloudletRuntime
@_exported import CloudletSQLite
