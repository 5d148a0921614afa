import AppStoreModels
import Foundation
import LoopbackHTTP
import MatrixModel
import SignedData
import Signing
import Threading

/// A team's backend, in process, for tests: it keeps what App Store Server Notifications told it, as Apple
/// advises (duplicates ignored by `notificationUUID`, the latest `signedDate` wins for each original
/// transaction), and answers access by original transaction. Its payloads are decoded, not verified: the Python
/// reference backend verifies; these tests are about delivery.
///
/// Behaviours make it one of the backends teams write by mistake.
final class TestBackend: Sendable {
    struct Behaviour: Sendable {
        /// Answer 500 to the first N attempts of every notification.
        var failFirstAttempts = 0
        /// Answer every notification with this status.
        var alwaysStatus: Int?
        /// Keep the last notification received rather than the latest signed (order-dependent).
        var lastReceivedWins = false
        /// Count purchase notifications of one-time products and refunds instead of keeping state (duplicates count).
        var countsOneTimePurchases = false
        /// Answer the access endpoint with this body.
        var accessBody: String?
        /// Acknowledge these notification types and do nothing with them.
        var ignoredTypes: Set<String> = []
        /// Verifies every notification with the simulator root, the matrix's bundle id and Sandbox, and answers 400
        /// to one that does not verify.
        var verifies = false
    }

    struct Entry {
        var signedDate: Int64
        var transaction: JWSTransactionDecodedPayload
        var status: Int?
        var type: String
    }

    struct State {
        var received: [ResponseBodyV2DecodedPayload] = []
        var attemptsByUUID: [String: Int] = [:]
        var handled: Set<String> = []
        var byOriginal: [String: Entry] = [:]
        var counts: [String: Int] = [:]
        var accessRequests: [HTTPRequest] = []
    }

    let matrix: Matrix
    let behaviour: Behaviour
    let state = Locked(State())
    let server = Locked<LoopbackHTTPServer?>(nil)

    init(matrix: Matrix, behaviour: Behaviour = Behaviour()) throws {
        self.matrix = matrix
        self.behaviour = behaviour
        let started = try LoopbackHTTPServer.start { [weak self] request in self?.handle(request) ?? HTTPResponse(status: 503) }
        server.withLock { $0 = started }
    }

    deinit { server.withLock { $0?.stop() } }

    var port: UInt16 { server.withLock { $0?.port ?? 0 } }

    var notifyURL: String { "http://127.0.0.1:\(port)/notifications" }
    var accessURL: String { "http://127.0.0.1:\(port)/access/{originalTransactionId}" }

    var received: [ResponseBodyV2DecodedPayload] { state.withLock { $0.received } }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.method == "POST", request.path == "/notifications" { return notification(request) }
        if request.method == "GET", request.path.hasPrefix("/access/") { return access(request) }
        return HTTPResponse(status: 404)
    }

    func notification(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: String], let jws = body["signedPayload"],
              let payload = try? JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: JWS.decodePayload(jws)),
              let uuid = payload.notificationUUID else { return HTTPResponse(status: 400) }
        if behaviour.verifies {
            guard let verifier = try? SimulatorPKI.default.verifier(bundleId: matrix.app.bundleId, appAppleId: matrix.app.appAppleId, environment: "Sandbox"),
                  (try? verifier.verifyAndDecodeNotification(jws)) != nil else { return HTTPResponse(status: 400) }
        }
        return state.withLock { state in
            state.received.append(payload)
            state.attemptsByUUID[uuid, default: 0] += 1
            if let status = behaviour.alwaysStatus { return HTTPResponse(status: status) }
            if state.attemptsByUUID[uuid, default: 0] <= behaviour.failFirstAttempts { return HTTPResponse(status: 500) }
            let type = payload.notificationType ?? ""
            if behaviour.ignoredTypes.contains(type) { return HTTPResponse(status: 200) }
            guard let signed = payload.data?.signedTransactionInfo,
                  let transaction = try? JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: JWS.decodePayload(signed)),
                  let original = transaction.originalTransactionId else { return HTTPResponse(status: 200) }
            if behaviour.countsOneTimePurchases, transaction.type == "Non-Consumable" {
                if type == "ONE_TIME_CHARGE" { state.counts[original, default: 0] += 1 }
                if type == "REFUND" || type == "REVOKE" { state.counts[original, default: 0] -= 1 }
            }
            guard behaviour.lastReceivedWins || !state.handled.contains(uuid) else { return HTTPResponse(status: 200) }
            state.handled.insert(uuid)
            let date = payload.signedDate?.milliseconds ?? 0
            if behaviour.lastReceivedWins || (state.byOriginal[original]?.signedDate ?? .min) <= date {
                state.byOriginal[original] = Entry(signedDate: date, transaction: transaction, status: payload.data?.status, type: type)
            }
            return HTTPResponse(status: 200)
        }
    }

    func access(_ request: HTTPRequest) -> HTTPResponse {
        if let body = behaviour.accessBody { return .json(200, Array(body.utf8)) }
        let original = String(request.path.dropFirst("/access/".count))
        let now = request.header("Matrix-Store-Time").flatMap { Int64($0) } ?? 0
        let products: [String] = state.withLock { state in
            state.accessRequests.append(request)
            guard let entry = state.byOriginal[original], let product = entry.transaction.productId else { return [] }
            if behaviour.countsOneTimePurchases, entry.transaction.type == "Non-Consumable" {
                return state.counts[original, default: 0] > 0 ? [product] : []
            }
            if entry.transaction.revocationDate != nil { return [] }
            switch entry.transaction.type {
            case "Auto-Renewable Subscription":
                // In a grace period the subscription grants access past its expiresDate; otherwise until it.
                let current = entry.status == 4 || (entry.status == 1 && (entry.transaction.expiresDate?.milliseconds ?? .max) > now)
                return current ? [product] : []
            case "Non-Renewing Subscription":
                guard let duration = matrix.nonRenewing[product]?.duration, let bought = entry.transaction.purchaseDate?.milliseconds else { return [] }
                return duration.added(to: bought) > now ? [product] : []
            case "Consumable":
                return []
            default:
                return [product]
            }
        }
        let tiers = matrix.access(for: products)
        let json = "{\"access\": [" + tiers.map { "\"\($0)\"" }.joined(separator: ", ") + "]}"
        return .json(200, Array(json.utf8))
    }
}
