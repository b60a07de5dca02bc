import Hummingbird
import GRDB
import ServiceLifecycle
import NIOPosix
enum Placeholder {}
