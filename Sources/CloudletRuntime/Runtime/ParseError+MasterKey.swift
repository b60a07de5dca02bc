import Cloudlet

extension ParseError {
    /// 119 (403), Parse Server's answer to a call that only the master key may make.
    package static let masterKeyRequired = ParseError(code: 119, message: "unauthorized: master key is required", httpStatus: 403)
}
