import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of the App Store Connect API's sandbox tester endpoints: list testers, change a tester's renewal
/// rate and interrupted purchases, clear a tester's purchase history.
///
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/sandbox-testers
public struct AppStoreConnectAPIClient: Sendable {
    /// Apple's base URL, `https://api.appstoreconnect.apple.com`.
    public static let appleBaseURL = URL(string: "https://api.appstoreconnect.apple.com") ?? URL(fileURLWithPath: "/")

    /// How the client connects.
    public struct Configuration: Sendable {
        /// A base URL replacing Apple's, for a proxy or a local mock; its path is kept as a prefix.
        public var baseURL: URL?
        /// Seconds one attempt may take.
        public var timeout: Double
        /// Retries.
        public var retry: RetryPolicy
        /// Time and waiting.
        public var clock: any APIClock
        /// The session requests go through (its configuration: each request gets a session of its own, made
        /// from it, that bounds the answer and refuses redirects to another origin).
        public var session: URLSession
        /// The most bytes one answer's body may have (16 MB); a larger one is `.invalidResponse`.
        public var maximumAnswerBytes: Int = APITransport.defaultMaximumAnswerBytes
        /// The most pages read when listing.
        public var maximumPages: Int

        /// A configuration with Apple's base URL, a 30 s timeout and the standard retries.
        public init(baseURL: URL? = nil, timeout: Double = 30, retry: RetryPolicy = .standard, clock: any APIClock = SystemAPIClock(),
                    session: URLSession = URLSession(configuration: .ephemeral), maximumPages: Int = 50) {
            self.baseURL = baseURL
            self.timeout = timeout
            self.retry = retry
            self.clock = clock
            self.session = session
            self.maximumPages = max(1, maximumPages)
        }
    }

    /// The configuration in use.
    public let configuration: Configuration
    let transport: APITransport

    /// Creates a client that signs with the App Store Connect API key (``AppStoreCredentials/connectAPIKey``).
    ///
    /// - Throws: ``AppStoreAPIError`` `.configuration` when no key is configured.
    public init(credentials: AppStoreCredentials, configuration: Configuration = Configuration()) throws(AppStoreAPIError) {
        guard let key = credentials.connectAPIKey else {
            throw AppStoreAPIError(.configuration, "no App Store Connect API key is configured")
        }
        self.configuration = configuration
        transport = APITransport(
            api: .appStoreConnect, session: configuration.session, baseURL: configuration.baseURL ?? Self.appleBaseURL,
            tokens: APITokenFactory(issuerId: credentials.issuerId, key: key, audience: .appStoreConnectAPI),
            retry: configuration.retry, clock: configuration.clock, timeout: configuration.timeout,
            redaction: Redaction(secrets: credentials.secrets), maximumAnswerBytes: configuration.maximumAnswerBytes,
            interpret: ConnectAPIFailure.interpret)
    }

    /// List Sandbox Testers: `GET /v2/sandboxTesters`, every page (`links.next`).
    ///
    /// A `links.next` URL is followed by its path and query only, always against the configured base URL, so
    /// the token is never sent to another host.
    ///
    /// - Returns: The team's sandbox testers.
    /// - Throws: ``AppStoreAPIError``.
    /// Apple: https://developer.apple.com/documentation/appstoreconnectapi/get-v2-sandboxtesters
    public func sandboxTesters() async throws(AppStoreAPIError) -> [SandboxTester] {
        let endpoint = "GET /v2/sandboxTesters"
        var testers: [SandboxTester] = []
        var paging = Paging(limit: configuration.maximumPages, api: .appStoreConnect)
        var request = APIRequest(method: "GET", path: "/v2/sandboxTesters", query: [URLQueryItem(name: "limit", value: "200")], endpoint: endpoint)
        while true {
            let page = try await transport.send(request, decoding: SandboxTestersV2Response.self)
            testers += page.data.map(\.tester)
            let next = page.links?.next.flatMap { Self.pathAndQuery($0, below: transport.baseURL) }
            guard try paging.advance(hasMore: page.links?.next != nil, next: next, request: request), let next else { return testers }
            request = APIRequest(method: "GET", path: next, endpoint: endpoint)
        }
    }

    /// Modify a Sandbox Tester: `PATCH /v2/sandboxTesters/{id}`.
    ///
    /// - Parameters:
    ///   - id: The tester's id.
    ///   - subscriptionRenewalRate: The new renewal rate, or `nil` to keep it.
    ///   - interruptPurchases: The new setting, or `nil` to keep it.
    ///   - territory: The new territory (ISO 3166-1 alpha-3), or `nil` to keep it.
    /// - Returns: The tester as App Store Connect now has it.
    /// - Throws: ``AppStoreAPIError``; `.badRequest` before sending when nothing would change.
    /// Apple: https://developer.apple.com/documentation/appstoreconnectapi/patch-v2-sandboxtesters-_id_
    public func updateSandboxTester(id: String, subscriptionRenewalRate: SandboxRenewalRate? = nil, interruptPurchases: Bool? = nil,
                                    territory: String? = nil) async throws(AppStoreAPIError) -> SandboxTester {
        let endpoint = "PATCH /v2/sandboxTesters/{id}"
        guard subscriptionRenewalRate != nil || interruptPurchases != nil || territory != nil else {
            throw AppStoreAPIError(.badRequest, "nothing to change: give a renewal rate, interrupted purchases or a territory",
                                   api: .appStoreConnect, endpoint: endpoint)
        }
        let attributes = SandboxTesterV2.Attributes(territory: territory, interruptPurchases: interruptPurchases,
                                                    subscriptionRenewalRate: subscriptionRenewalRate?.rawValue)
        let body = try encode(SandboxTesterV2UpdateRequest(data: .init(id: id, attributes: attributes)), endpoint: endpoint)
        // PATCH sets absolute values, so sending it twice is harmless.
        let request = APIRequest(method: "PATCH", path: "/v2/sandboxTesters/" + (try segment(id, endpoint: endpoint)), body: body,
                                 isIdempotent: true, endpoint: endpoint)
        return try await transport.send(request, decoding: SandboxTesterV2Response.self).data.tester
    }

    /// Clear Purchase History for a List of Sandbox Testers: `POST /v2/sandboxTestersClearPurchaseHistoryRequest`.
    ///
    /// - Parameter testerIds: The testers' ids (at least one).
    /// - Returns: The id of the clear request App Store Connect created.
    /// - Throws: ``AppStoreAPIError``.
    /// Apple: https://developer.apple.com/documentation/appstoreconnectapi/post-v2-sandboxtestersclearpurchasehistoryrequest
    @discardableResult
    public func clearPurchaseHistory(testerIds: [String]) async throws(AppStoreAPIError) -> String? {
        let endpoint = "POST /v2/sandboxTestersClearPurchaseHistoryRequest"
        guard !testerIds.isEmpty else {
            throw AppStoreAPIError(.badRequest, "no sandbox tester to clear", api: .appStoreConnect, endpoint: endpoint)
        }
        let document = SandboxTestersClearPurchaseHistoryRequestV2CreateRequest(data: .init(relationships: .init(
            sandboxTesters: .init(data: testerIds.map { .init(id: $0) }))))
        let request = APIRequest(method: "POST", path: "/v2/sandboxTestersClearPurchaseHistoryRequest",
                                 body: try encode(document, endpoint: endpoint), isIdempotent: true, endpoint: endpoint)
        return try await transport.send(request, decoding: SandboxTestersClearPurchaseHistoryRequestV2Response.self).data?.id
    }

    // MARK: - Helpers

    /// The path and query of an absolute `links.next` URL, without the base URL's own path prefix (a proxy's).
    static func pathAndQuery(_ link: String, below baseURL: URL) -> String? {
        guard let components = URLComponents(string: link), !components.percentEncodedPath.isEmpty else { return nil }
        var path = components.percentEncodedPath
        var prefix = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        while prefix.hasSuffix("/") { prefix.removeLast() }
        if !prefix.isEmpty, path.hasPrefix(prefix + "/") { path.removeFirst(prefix.count) }
        return path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    private func encode(_ value: some Encodable, endpoint: String) throws(AppStoreAPIError) -> Data {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try encoder.encode(value)
        } catch {
            throw AppStoreAPIError(.configuration, "the request body cannot be encoded", api: .appStoreConnect, endpoint: endpoint)
        }
    }

    private func segment(_ id: String, endpoint: String) throws(AppStoreAPIError) -> String {
        guard !id.isEmpty, id.count <= 256 else {
            throw AppStoreAPIError(.badRequest, "the sandbox tester id is empty or too long", api: .appStoreConnect, endpoint: endpoint)
        }
        return APIRequest.pathSegment(id)
    }
}
