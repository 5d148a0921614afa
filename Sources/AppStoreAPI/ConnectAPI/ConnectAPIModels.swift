// The App Store Connect API's JSON:API documents for sandbox testers, with Apple's member names.

/// A sandbox tester resource.
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/sandboxtesterv2
struct SandboxTesterV2: Codable, Sendable {
    struct Attributes: Codable, Sendable {
        var firstName: String?
        var lastName: String?
        var acAccountName: String?
        var territory: String?
        var applePayCompatible: Bool?
        var interruptPurchases: Bool?
        var subscriptionRenewalRate: String?
    }

    var type: String?
    var id: String
    var attributes: Attributes?

    var tester: SandboxTester {
        SandboxTester(id: id, firstName: attributes?.firstName, lastName: attributes?.lastName, acAccountName: attributes?.acAccountName,
                      territory: attributes?.territory, applePayCompatible: attributes?.applePayCompatible,
                      interruptPurchases: attributes?.interruptPurchases,
                      subscriptionRenewalRate: attributes?.subscriptionRenewalRate.map(SandboxRenewalRate.init(rawValue:)))
    }
}

/// A page of List Sandbox Testers.
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/sandboxtestersv2response
struct SandboxTestersV2Response: Codable, Sendable {
    struct Links: Codable, Sendable {
        var next: String?
    }

    var data: [SandboxTesterV2]
    var links: Links?
}

/// The answer to Modify a Sandbox Tester.
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/sandboxtesterv2response
struct SandboxTesterV2Response: Codable, Sendable {
    var data: SandboxTesterV2
}

/// The body of Modify a Sandbox Tester.
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/sandboxtesterv2updaterequest
struct SandboxTesterV2UpdateRequest: Codable, Sendable {
    struct Data: Codable, Sendable {
        var type = "sandboxTesters"
        var id: String
        var attributes: SandboxTesterV2.Attributes
    }

    var data: Data
}

/// The body of Clear Purchase History for a List of Sandbox Testers.
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/sandboxtestersclearpurchasehistoryrequestv2createrequest
struct SandboxTestersClearPurchaseHistoryRequestV2CreateRequest: Codable, Sendable {
    struct Linkage: Codable, Sendable {
        var type = "sandboxTesters"
        var id: String
    }

    struct Testers: Codable, Sendable {
        var data: [Linkage]
    }

    struct Relationships: Codable, Sendable {
        var sandboxTesters: Testers
    }

    struct Data: Codable, Sendable {
        var type = "sandboxTestersClearPurchaseHistoryRequest"
        var relationships: Relationships
    }

    var data: Data
}

/// The answer to Clear Purchase History.
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/sandboxtestersclearpurchasehistoryrequestv2response
struct SandboxTestersClearPurchaseHistoryRequestV2Response: Codable, Sendable {
    struct Data: Codable, Sendable {
        var type: String?
        var id: String?
    }

    var data: Data?
}

/// An App Store Connect API error document.
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/errorresponse
struct ConnectErrorResponse: Codable, Sendable {
    struct Error: Codable, Sendable {
        var id: String?
        var status: String?
        var code: String?
        var title: String?
        var detail: String?
    }

    var errors: [Error]?
}
