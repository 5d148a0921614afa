#!/usr/bin/env python3
"""A matrix driver (protocol version 1) for a deliberately buggy toy app.

The toy app unlocks what it buys and what it finds at launch, and never locks anything again: it ignores
refunds. Run a matrix against it and the refund case fails with access still granted, which is the point.

    matrix run my-matrix.json --env exec --driver "python3 examples/drivers/python/toy_driver.py"

Standard library only. Requests arrive on stdin, one JSON object per line; answers go to stdout, one per
line, flushed; everything on stderr is the driver's log. See docs/driver-protocol.md.
"""

import json
import sys

PROTOCOL_VERSION = 1
START_TIME_MS = 1_767_268_800_000  # 2026-01-01T12:00:00Z, where every case starts
STEP_MS = 60_000                   # the toy store's clock moves one minute per step
ACTIONS = ["launch", "relaunch", "quit", "purchase", "restore", "refund", "observe"]


def log(message):
    print(f"toy-driver: {message}", file=sys.stderr, flush=True)


class DriverError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class ToyStore:
    """Transactions per account; a refund sets revocationDate, as the App Store does."""

    def __init__(self, products, accounts):
        self.products = products
        self.now = START_TIME_MS
        self.transactions = []
        self.next_id = 1
        self.notifications = []
        for account in accounts:
            for product_id in account.get("owns", []):
                self.buy(account["alias"], product_id)
        self.notifications = []  # the starting state was bought before the case: no notification for it

    def buy(self, account, product_id):
        transaction = {
            "account": account,
            "transactionId": str(self.next_id),
            "originalTransactionId": str(self.next_id),
            "productId": product_id,
            "purchaseDate": self.now,
            "inAppOwnershipType": "PURCHASED",
            "isUpgraded": False,
            "quantity": 1,
            "transactionReason": "PURCHASE",
        }
        self.next_id += 1
        self.transactions.append(transaction)
        # App Store Server Notifications V2: a one-time purchase is a ONE_TIME_CHARGE.
        self.notifications.append((account, "ONE_TIME_CHARGE"))
        return transaction

    def latest(self, account, product_id):
        found = [t for t in self.transactions if t["account"] == account and t["productId"] == product_id]
        return found[-1] if found else None

    def refund(self, account, product_id, reason):
        transaction = self.latest(account, product_id)
        if transaction is None or "revocationDate" in transaction:
            raise DriverError(1000, f"{account} has no refundable transaction of {product_id}")
        transaction["revocationDate"] = self.now
        transaction["revocationReason"] = reason
        self.notifications.append((account, "REFUND"))
        return transaction

    def entitlements(self, account):
        return sorted({t["productId"] for t in self.transactions
                       if t["account"] == account and "revocationDate" not in t
                       and self.products.get(t["productId"], {}).get("type") != "consumable"})


class ToyApp:
    """The app on one account's device. Its bug: `unlocked` only ever grows."""

    def __init__(self):
        self.running = False
        self.unlocked = set()

    def launch(self, store, account):
        self.running = True
        self.unlocked |= set(store.entitlements(account))  # adds what it finds, never removes


class ToyDriver:
    def __init__(self):
        self.params = None
        self.products = {}
        self.case = None
        self.store = None
        self.apps = {}

    def initialize(self, params):
        if params.get("protocolVersion") != PROTOCOL_VERSION:
            raise DriverError(1001, f"this driver speaks protocol version {PROTOCOL_VERSION}")
        self.params = params
        self.products = {p["productId"]: p for p in params["catalog"]["products"]}
        log(f"initialized with matrix {params['matrix']['name']!r}, {len(self.products)} products")
        return {"protocolVersion": PROTOCOL_VERSION, "environment": "toy-app", "actions": ACTIONS,
                "device": "toy device", "os": "toy OS 1.0", "build": "toy 1.0 (1)",
                "driver": {"name": "toy_driver.py", "version": "1.0"}}

    def reset(self, params):
        self.case = params["case"]["id"]
        self.store = ToyStore(self.products, self.params["accounts"])
        self.apps = {}
        # Cases the toy cannot model at all are refused whole: every step is recorded skipped.
        if params.get("store", {}).get("askToBuy"):
            return {"unsupported": "the toy store has no Ask to Buy"}
        if params.get("account", {}).get("familyOrganizer"):
            return {"unsupported": "the toy store has no Family Sharing"}
        if params.get("store", {}).get("storefront", "USA") != "USA":
            return {"unsupported": "the toy store sells in the United States storefront only"}
        return {}

    def perform(self, params):
        if self.store is None or params["case"] != self.case:
            raise DriverError(-32600, "perform without a reset for its case")
        step = params["step"]
        account = params["account"]
        action = step["action"]
        app = self.apps.setdefault(account, ToyApp())
        store = self.store
        store.now += STEP_MS
        first_transaction = store.next_id
        result = None
        message = None

        if action == "launch":
            app.launch(store, account)
        elif action == "relaunch":
            app.running = False
            app.launch(store, account)
        elif action == "quit":
            app.running = False
        elif action == "purchase":
            product_id = step["product"]
            outcome = step.get("outcome", "success")
            kind = self.products.get(product_id, {}).get("type")
            if outcome not in ("success", "userCancelled"):
                return {"status": "unsupported", "reason": f"the toy store cannot produce a {outcome} purchase"}
            if kind == "consumable":
                return {"status": "unsupported", "reason": "the toy app sells no consumables"}
            if kind in ("autoRenewable", "nonRenewable"):
                return {"status": "unsupported", "reason": "the toy app sells no subscriptions"}
            if outcome == "success":
                store.buy(account, product_id)
                app.unlocked.add(product_id)
            result = outcome
        elif action == "restore":
            owned = store.entitlements(account)
            app.unlocked |= set(owned)
            result = "restored" if owned else "nothingToRestore"
            message = None if owned else "Nothing to restore"
        elif action == "refund":
            store.refund(account, step["product"], step.get("reason", 0))
            # The bug: the app does not listen to Transaction.updates, so access stays.
        elif action == "observe":
            pass
        else:
            return {"status": "unsupported", "reason": f"the toy store has no {action}"}

        if message is None and not app.running and action != "quit":
            message = "the app is not running"
        changed = [t["transactionId"] for t in store.transactions
                   if t["account"] == account and (int(t["transactionId"]) >= first_transaction or t.get("revocationDate") == store.now)]
        sent = [name for (who, name) in store.notifications if who == account]
        store.notifications = [(who, name) for (who, name) in store.notifications if who != account]
        return {"status": "observed", "modelledWallTimeMs": STEP_MS, "observation": self.observe(account, app, result, message, changed, sent)}

    def observe(self, account, app, result, message, changed, notifications):
        store = self.store
        access = sorted(tier["name"] for tier in self.params["tiers"] if app.unlocked & set(tier["productIDs"]))
        transactions = []
        for product_id in self.products:
            latest = store.latest(account, product_id)
            if latest is not None:
                transactions.append({k: v for k, v in latest.items() if k != "account"})
        observation = {"access": access if app.running else [], "entitlements": store.entitlements(account),
                       "notifications": notifications, "transactions": transactions, "transactionIds": changed,
                       "storeTime": store.now}
        if result is not None:
            observation["result"] = result
        if message is not None:
            observation["message"] = message
        return observation


def main():
    driver = ToyDriver()
    for line in sys.stdin:
        if not line.strip():
            continue
        request_id = None
        request = {}
        try:
            request = json.loads(line)
            request_id = request["id"]
            method = request["method"]
            params = request.get("params", {})
            if method == "initialize":
                result = driver.initialize(params)
            elif method == "reset":
                result = driver.reset(params)
            elif method == "perform":
                result = driver.perform(params)
            elif method == "shutdown":
                result = {}
            else:
                raise DriverError(-32601, f"unknown method {method!r}")
            response = {"id": request_id, "result": result}
        except DriverError as error:
            response = {"id": request_id, "error": {"code": error.code, "message": error.message}}
        except (ValueError, KeyError, TypeError) as error:
            response = {"id": request_id, "error": {"code": -32602, "message": f"cannot read the request: {error!r}"}}
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()
        if request.get("method") == "shutdown":
            log("shut down")
            return


if __name__ == "__main__":
    main()
