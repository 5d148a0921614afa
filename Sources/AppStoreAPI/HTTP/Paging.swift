import Foundation

/// Follows a paged endpoint's continuation token (`revision`, `paginationToken`, `links.next`) and stops a
/// server that never says "no more": a token that comes back twice, or more pages than the limit, is an
/// error instead of an endless loop.
struct Paging {
    /// The most pages read.
    let limit: Int
    /// Which API, for errors.
    var api: AppStoreAPIError.API = .appStoreServer
    /// The token for the next page; `nil` before the first.
    private(set) var token: String?
    private var seen: Set<String> = []
    private var pages = 0

    init(limit: Int, api: AppStoreAPIError.API = .appStoreServer) {
        self.limit = limit
        self.api = api
    }

    /// The query item carrying the token, or nothing for the first page.
    func items(named name: String) -> [URLQueryItem] {
        token.map { [URLQueryItem(name: name, value: $0)] } ?? []
    }

    /// Records a page; returns whether another should be read.
    ///
    /// - Throws: ``AppStoreAPIError`` `.invalidResponse` for `hasMore` without a token, a repeated token, or
    ///   too many pages.
    mutating func advance(hasMore: Bool?, next: String?, request: APIRequest) throws(AppStoreAPIError) -> Bool {
        pages += 1
        guard hasMore == true else { return false }
        guard let next, !next.isEmpty else {
            throw AppStoreAPIError(.invalidResponse, "the answer says more pages follow but gives no token for the next one",
                                   api: api, endpoint: request.endpoint)
        }
        guard seen.insert(next).inserted else {
            throw AppStoreAPIError(.invalidResponse, "paging does not advance: page \(pages + 1) would repeat an earlier page's token",
                                   api: api, endpoint: request.endpoint)
        }
        guard pages < limit else {
            throw AppStoreAPIError(.invalidResponse, "more than \(limit) pages; narrow the query (dates, product ids) or raise the page limit",
                                   api: api, endpoint: request.endpoint)
        }
        token = next
        return true
    }
}
