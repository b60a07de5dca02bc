import ArgumentParser
import AsyncHTTPClient
import Cloudlet
import CloudletServer
import Foundation
import NIOCore
import NIOHTTP1

/// `cloudlet jobs run <app> <job>`: asks the running server to start a job now, through
/// `POST <server>/jobs/<job>` with the app's master key, and prints the run's id; with `--wait`,
/// follows the run (`GET <server>/classes/_JobStatus/<id>`) until it ends.
struct JobsRunCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "run", abstract: "Start a job now on the running server (POST /jobs/:name with the master key).")
    }

    @Argument(help: "The app id.") var app: String
    @Argument(help: "The job's name.") var job: String
    @Option(help: "The job's parameters as a JSON object. Default {}.") var params: String?
    @Option(help: "The server's Parse URL (CLOUDLET_SERVER). Default http://127.0.0.1:1337/parse.") var server: String?
    @Option(help: "The app's master key (CLOUDLET_MASTER_KEY).") var masterKey: String?
    @Flag(help: "Wait for the run to end; exit with status 1 if it failed.") var wait = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let key = masterKey ?? environment["CLOUDLET_MASTER_KEY"] else {
            throw ValidationError("give the app's master key with --master-key or CLOUDLET_MASTER_KEY")
        }
        guard let body = try? JSONParser.parse(params ?? "{}"), body.objectValue != nil else {
            throw ValidationError("--params must be a JSON object")
        }
        let base = (server ?? environment["CLOUDLET_SERVER"] ?? "http://127.0.0.1:1337/parse").trimmingCharacters(in: ["/"])
        let started = try await send(.POST, "\(base)/jobs/\(job)", key: key, body: body)
        guard let id = started["jobStatusId"]?.stringValue else { throw ValidationError("the server answered no job id") }
        guard wait else {
            return print(json ? JSONWriter.string(["jobStatusId": .string(id)]) : "started job \(job): \(id)")
        }
        while true {
            let status = try await send(.GET, "\(base)/classes/\(JobStatus.className)/\(id)", key: key, body: nil)
            if status["status"]?.stringValue != JobStatus.State.running.rawValue {
                let fields = status.objectValue ?? [:]
                let run = ParseObject(className: JobStatus.className, json: fields)
                print(json ? JSONWriter.string(status) : JobRuns.line(run))
                if status["status"]?.stringValue != JobStatus.State.succeeded.rawValue { throw ExitCode.failure }
                return
            }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// Sends one request to the server as the app's master key, and answers its JSON body; a Parse
    /// error answer is printed and ends the command with status 1.
    private func send(_ method: HTTPMethod, _ url: String, key: String, body: ParseValue?) async throws -> ParseValue {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "X-Parse-Application-Id", value: app)
        request.headers.add(name: "X-Parse-Master-Key", value: key)
        request.headers.add(name: "Content-Type", value: "application/json")
        if let body { request.body = .bytes(ByteBuffer(bytes: JSONWriter.bytes(body))) }
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        } catch {
            throw ValidationError("could not reach \(url): \(error)")
        }
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let answer = (try? JSONParser.parse(bytes.readableBytesView)) ?? .null
        guard response.status == .ok else {
            let message = answer["error"]?.stringValue ?? "HTTP \(response.status.code)"
            FileHandle.standardError.write(Data("error: \(message)\n".utf8))
            throw ExitCode.failure
        }
        return answer
    }
}
