import Cloudlet
import Crypto
import Foundation
import NIOSSL
import LoadSupport
import PushStandIns
import Synchronization

/// The APNs stand-in in a process of its own, as Apple's servers are: its memory and CPU are not
/// the delivery side's. The benchmark runs itself with `--stand-in <key.p8> <certificate.pem>`;
/// that process serves APNs with the key's public half, writes its certificate, prints its URL on
/// one line, and exits when its standard input closes.
struct StandInProcess {
    static let flag = "--stand-in"
    static let keyId = "BENCHKEY12"
    static let teamId = "TEAM123456"
    static let topic = "com.example.benchmark"

    /// The base URL the provider sends to.
    let url: String
    /// The roots that trust the stand-in's certificate.
    let trustRoots: NIOSSLTrustRoots
    private let process: Process
    private let input: Pipe

    /// The stand-in process's id, to read its CPU time.
    var pid: Int32 { process.processIdentifier }

    /// Starts the stand-in process for `keyFile`, writing its certificate into `folder`.
    init(keyFile: String, folder: URL) throws {
        let certificateFile = folder.appendingPathComponent("stand-in.pem").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = [Self.flag, keyFile, certificateFile]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") { line.append(byte) }
        guard let url = String(validating: line, as: UTF8.self), url.hasPrefix("https://") else {
            throw BenchmarkFailure("the stand-in process did not start")
        }
        self.url = url
        trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificateFile))
    }

    /// Ends the stand-in process.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// The stand-in side: serves until standard input closes.
    static func serve(keyFile: String, certificateFile: String) async throws {
        let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: keyFile, encoding: .utf8))
        let apns = try await APNsStandIn(
            publicKey: key.publicKey, keyId: keyId, teamId: teamId, topic: topic, recordsNotifications: false)
        let unavailableOnce = Mutex<Set<Int>>([])
        apns.script { token in
            guard let (scenario, index) = BenchmarkTokens.parse(token), scenario == BenchmarkTokens.failingScenario else { return .accept }
            if BenchmarkTokens.isUnregistered(index) { return .unregistered(at: Date()) }
            if BenchmarkTokens.isUnavailableOnce(index), unavailableOnce.withLock({ $0.insert(index).inserted }) {
                return .reject(status: 503, reason: "ServiceUnavailable")
            }
            return .accept
        }
        try Data(pem(apns.server.certificate.toDERBytes()).utf8).write(to: URL(fileURLWithPath: certificateFile))
        FileHandle.standardOutput.write(Data((apns.server.url + "\n").utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        try await apns.stop()
    }

    private static func pem(_ der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }
}

