/// Words people write for the matrix's own names, for "did you mean" hints that suggest what was meant, not
/// what is spelt alike (`restart` is two edits from `restore`, and means `relaunch`). Keys are lower-case.
public enum Synonyms {
    /// For actions (``Action``).
    public static let actions: [String: String] = [
        "restart": "relaunch", "reopen": "relaunch", "reboot": "relaunch", "start": "launch", "open": "launch",
        "close": "quit", "kill": "quit", "terminate": "quit", "uninstall": "reinstall", "buy": "purchase",
        "subscribe": "purchase", "sync": "restore", "restorepurchases": "restore", "wait": "advanceTime",
        "advance": "advanceTime", "renewal": "renew", "cancel": "disableAutoRenew", "unsubscribe": "disableAutoRenew",
        "resubscribe": "enableAutoRenew", "approve": "approveAskToBuy", "decline": "declineAskToBuy",
        "revoke": "refund", "expiration": "expire", "check": "observe", "look": "observe",
    ]

    /// For purchase outcomes and results (``PurchaseOutcome``, ``Expectation/purchaseResults``,
    /// ``Expectation/restoreResults``).
    public static let results: [String: String] = [
        "cancelled": "userCancelled", "canceled": "userCancelled", "cancel": "userCancelled", "usercanceled": "userCancelled",
        "ok": "success", "succeeded": "success", "successful": "success", "purchased": "success",
        "asktobuy": "pending", "waiting": "pending", "deferred": "pending",
        "error": "failed", "failure": "failed", "fail": "failed",
        "none": "nothingToRestore", "nothing": "nothingToRestore", "empty": "nothingToRestore",
    ]
}
