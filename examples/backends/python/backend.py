#!/usr/bin/env python3
"""A reference backend for `matrix run --env server`: App Store Server Notifications V2 in, access out.

It does what Apple advises a server to do with notifications:
  - verifies every signedPayload, and the signedTransactionInfo and signedRenewalInfo inside it, with Apple's
    App Store Server Library (SignedDataVerifier) against the root it is given (the StoreKit Matrix simulator
    root, `matrix pki export-root`; Apple Root CA - G3 in production) and refuses what does not verify (HTTP 400);
  - answers 200 only once a notification is stored, so that the App Store retries what it could not store;
  - ignores a notificationUUID it has handled (duplicates are normal: retries, lost answers);
  - lets the latest signedDate win for each original transaction (notifications can arrive out of order);
  - keeps its state in SQLite;
  - when a notification is for an original transaction it does not know, asks the App Store Server API for the
    customer's whole history (Get Transaction History v2, every page) and subscription statuses (Get All
    Subscription Statuses), with Apple's AppStoreServerAPIClient pointed at the runner's loopback server
    (MATRIX_API_BASE_URL; the library hard-wires Apple's URLs, so the base URL is set on the client);
  - answers GET /access/original/{originalTransactionId} and /access/token/{appAccountToken} with
    {"access": [tier, ...]} as of the store time the runner sends in the Matrix-Store-Time header.

Run it as the runner starts it:
  matrix run matrices/release.json --env server --server "python3 examples/backends/python/backend.py" \
      --notify-url 'http://127.0.0.1:{port}/notifications' \
      --access-url 'http://127.0.0.1:{port}/access/original/{originalTransactionId}'

--variant ignores-refund   acknowledges REFUND and REVOKE and does nothing with them (a known bug)
--variant counts-duplicates counts one-time purchases and refunds instead of keeping state, duplicates included
--variant probes-api       the reference, and for every notification calls each App Store Server API endpoint the
                           runner serves and decodes the answers with the library's models (answers 500 if one fails)
"""
import argparse
import base64
import json
import os
import sqlite3
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.TransactionHistoryRequest import TransactionHistoryRequest
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_BODY = 256 * 1024
DAY_MS = 86_400_000


def log(message):
    print(message, file=sys.stderr, flush=True)


class Store:
    """The backend's database: notifications handled, and the latest state of each original transaction."""

    def __init__(self, path):
        self.lock = threading.Lock()
        self.db = sqlite3.connect(path, check_same_thread=False)
        self.db.executescript(
            """
            CREATE TABLE IF NOT EXISTS handled (notification_uuid TEXT PRIMARY KEY);
            CREATE TABLE IF NOT EXISTS originals (
                original_transaction_id TEXT PRIMARY KEY,
                signed_date INTEGER NOT NULL,
                product_id TEXT NOT NULL,
                type TEXT NOT NULL,
                app_account_token TEXT,
                purchase_date INTEGER,
                expires_date INTEGER,
                revoked INTEGER NOT NULL,
                status INTEGER
            );
            CREATE TABLE IF NOT EXISTS counts (original_transaction_id TEXT PRIMARY KEY, n INTEGER NOT NULL);
            """
        )

    def seen(self, uuid):
        return self.db.execute("SELECT 1 FROM handled WHERE notification_uuid = ?", (uuid,)).fetchone() is not None

    def record(self, uuid, signed_date, transaction, status):
        """Keeps the transaction unless a later-signed notification already told about its original transaction."""
        original = transaction.originalTransactionId
        row = self.db.execute("SELECT signed_date FROM originals WHERE original_transaction_id = ?", (original,)).fetchone()
        if row is None or row[0] <= signed_date:
            self.db.execute(
                "INSERT OR REPLACE INTO originals VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (original, signed_date, transaction.productId, str(transaction.type.value if transaction.type else transaction.rawType),
                 transaction.appAccountToken, transaction.purchaseDate, transaction.expiresDate,
                 1 if transaction.revocationDate is not None else 0, status),
            )
        self.db.execute("INSERT OR IGNORE INTO handled VALUES (?)", (uuid,))
        self.db.commit()

    def count(self, original, delta):
        self.db.execute(
            "INSERT INTO counts VALUES (?, ?) ON CONFLICT(original_transaction_id) DO UPDATE SET n = n + excluded.n", (original, delta))
        self.db.commit()


class Backend:
    def __init__(self, args):
        with open(args.root, "rb") as handle:
            root = handle.read()
        environment = Environment(args.environment)
        self.verifier = SignedDataVerifier([root], False, environment, args.bundle_id, args.app_apple_id)
        with open(args.products) as handle:
            products = json.load(handle)
        self.tiers = products["tiers"]
        self.non_renewing_days = products.get("nonRenewingDays", {})
        self.variant = args.variant
        self.store = Store(args.database)
        self.api = None
        self.broken = None
        if args.api_base_url and args.api_key:
            with open(args.api_key, "rb") as handle:
                key = handle.read()
            self.api = AppStoreServerAPIClient(key, args.api_key_id, args.api_issuer_id, args.bundle_id, environment)
            # Apple's library hard-wires https://api.storekit(-sandbox).apple.com; point it at the loopback server.
            self.api._base_url = args.api_base_url.rstrip("/")

    def knows(self, original):
        with self.store.lock:
            return self.store.db.execute("SELECT 1 FROM originals WHERE original_transaction_id = ?", (original,)).fetchone() is not None

    def learn_customer(self, transaction_id):
        """Asks the App Store Server API for everything the customer of `transaction_id` has, and stores it."""
        if self.api is None:
            return
        statuses = {}
        response = self.api.get_all_subscription_statuses(transaction_id)
        for group in response.data or []:
            for item in group.lastTransactions or []:
                statuses[item.originalTransactionId] = item.rawStatus
        revision = None
        while True:
            page = self.api.get_transaction_history(transaction_id, revision, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
            for signed in page.signedTransactions or []:
                transaction = self.verifier.verify_and_decode_signed_transaction(signed)
                with self.store.lock:
                    self.store.record(f"history:{transaction.transactionId}", transaction.signedDate, transaction,
                                      statuses.get(transaction.originalTransactionId))
            if not page.hasMore:
                break
            revision = page.revision
        log(f"learned the history of the customer of {transaction_id} from the App Store Server API")

    def probe(self, transaction, notification):
        """Calls every endpoint the loopback App Store Server API serves; raises if an answer does not decode."""
        any_id = transaction.transactionId
        info = self.api.get_transaction_info(any_id)
        assert self.verifier.verify_and_decode_signed_transaction(info.signedTransactionInfo).transactionId == any_id
        history = self.api.get_transaction_history(any_id, None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
        assert history.revision is not None and history.hasMore is not None and history.signedTransactions is not None
        self.api.get_transaction_history(any_id, None, TransactionHistoryRequest(revoked=False), GetTransactionHistoryVersion.V2)
        for group in self.api.get_all_subscription_statuses(any_id).data or []:
            for item in group.lastTransactions or []:
                self.verifier.verify_and_decode_signed_transaction(item.signedTransactionInfo)
                self.verifier.verify_and_decode_renewal_info(item.signedRenewalInfo)
        for signed in self.api.get_refund_history(any_id, None).signedTransactions or []:
            self.verifier.verify_and_decode_signed_transaction(signed)
        window = NotificationHistoryRequest(startDate=notification.signedDate - 86_400_000, endDate=notification.signedDate + 1,
                                            transactionId=any_id, onlyFailures=False)
        for item in self.api.get_notification_history(None, window).notificationHistory or []:
            self.verifier.verify_and_decode_notification(item.signedPayload)
        try:
            self.api.get_transaction_info("not-a-number")
            raise AssertionError("an invalid transaction id was answered")
        except APIException as error:
            assert error.raw_api_error == 4000006, error.raw_api_error

    def test_notification(self):
        """Request a Test Notification, then its status once the runner has posted it."""
        token = self.api.request_test_notification().testNotificationToken
        for _ in range(200):
            try:
                status = self.api.get_test_notification_status(token)
                self.verifier.verify_and_decode_notification(status.signedPayload)
                results = [attempt.rawSendAttemptResult for attempt in status.sendAttempts]
                assert results == ["SUCCESS"], results
                return results
            except APIException as error:
                if error.raw_api_error != 4040008:
                    raise
                threading.Event().wait(0.05)
        raise AssertionError("the test notification's status never became available")

    def notification(self, body):
        """Handles one POST; returns the HTTP status to answer."""
        if self.broken:
            return 500
        try:
            signed_payload = json.loads(body)["signedPayload"]
            notification = self.verifier.verify_and_decode_notification(signed_payload)
        except (ValueError, KeyError, TypeError) as error:
            log(f"refused: not a responseBodyV2 ({error})")
            return 400
        except VerificationException as error:
            log(f"refused: the notification does not verify ({error.status})")
            return 400
        kind = notification.rawNotificationType
        uuid = notification.notificationUUID
        data = notification.data
        if data is None or data.signedTransactionInfo is None:
            log(f"{kind} {uuid}: nothing to store")
            return 200
        try:
            transaction = self.verifier.verify_and_decode_signed_transaction(data.signedTransactionInfo)
            if data.signedRenewalInfo is not None:
                self.verifier.verify_and_decode_renewal_info(data.signedRenewalInfo)
        except VerificationException as error:
            log(f"refused: {kind} {uuid} carries data that does not verify ({error.status})")
            return 400
        if self.api is not None and not self.knows(transaction.originalTransactionId):
            try:
                self.learn_customer(transaction.transactionId)
            except (APIException, VerificationException) as error:
                log(f"could not learn the customer of {transaction.transactionId} from the App Store Server API: {error}")
                return 500
        if self.variant == "probes-api":
            try:
                self.probe(transaction, notification)
            except Exception as error:  # any failure to call or decode is the finding
                log(f"probe failed for {kind} {uuid}: {type(error).__name__}: {error}")
                return 500
        with self.store.lock:
            if self.variant == "counts-duplicates" and transaction.rawType == "Non-Consumable":
                if kind == "ONE_TIME_CHARGE":
                    self.store.count(transaction.originalTransactionId, 1)
                elif kind in ("REFUND", "REVOKE"):
                    self.store.count(transaction.originalTransactionId, -1)
            if self.variant == "ignores-refund" and kind in ("REFUND", "REVOKE"):
                log(f"{kind} {uuid}: ignored")
                return 200
            if self.store.seen(uuid):
                log(f"{kind} {uuid}: already handled")
                return 200
            self.store.record(uuid, notification.signedDate, transaction, data.status)
        log(f"{kind}{'/' + notification.rawSubtype if notification.rawSubtype else ''} {uuid}: "
            f"{transaction.productId} of {transaction.originalTransactionId}")
        return 200

    def grants(self, row, now):
        """Whether one original transaction's latest state grants access at store time `now` (ms)."""
        original, _, product, kind, _, purchase_date, expires_date, revoked, status = row
        if self.variant == "counts-duplicates" and kind == "Non-Consumable":
            counted = self.store.db.execute("SELECT n FROM counts WHERE original_transaction_id = ?", (original,)).fetchone()
            return counted is not None and counted[0] > 0
        if revoked:
            return False
        if kind == "Auto-Renewable Subscription":
            # 1 active, 4 billing grace period (access continues past expiresDate); 2 expired, 3 billing retry, 5 revoked.
            return status == 4 or (status == 1 and (expires_date is None or expires_date > now))
        if kind == "Non-Renewing Subscription":
            days = self.non_renewing_days.get(product)
            return days is not None and purchase_date + days * DAY_MS > now
        return kind == "Non-Consumable"

    def access(self, column, value, now):
        with self.store.lock:
            rows = self.store.db.execute(f"SELECT * FROM originals WHERE {column} = ?", (value,)).fetchall()
            tiers = {self.tiers[row[2]] for row in rows if row[2] in self.tiers and self.grants(row, now)}
        return sorted(tiers)


def handler_for(backend):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, status, payload=None):
            body = json.dumps(payload).encode() if payload is not None else b""
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True

        def do_POST(self):
            if self.path != "/notifications":
                return self.answer(404, {"error": "not found"})
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self.answer(413, {"error": "too large"})
            self.answer(backend.notification(self.rfile.read(length)))

        def do_GET(self):
            now = int(self.headers.get("Matrix-Store-Time") or 0)
            for prefix, column in (("/access/original/", "original_transaction_id"), ("/access/token/", "app_account_token")):
                if self.path.startswith(prefix):
                    return self.answer(200, {"access": backend.access(column, self.path[len(prefix):], now)})
            self.answer(404, {"error": "not found"})

        def do_HEAD(self):
            self.answer(200)

        def log_message(self, *args):
            pass

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("MATRIX_PORT", "8080")))
    parser.add_argument("--root", default=os.environ.get("MATRIX_ROOT_CERTIFICATE"), help="DER root certificate (matrix pki export-root)")
    parser.add_argument("--bundle-id", default=os.environ.get("MATRIX_BUNDLE_ID", "com.example.storekitmatrix"))
    parser.add_argument("--environment", default=os.environ.get("MATRIX_ENVIRONMENT", "Sandbox"))
    parser.add_argument("--app-apple-id", type=int, default=int(os.environ["MATRIX_APP_APPLE_ID"]) if "MATRIX_APP_APPLE_ID" in os.environ else None)
    parser.add_argument("--products", default=os.path.join(HERE, "products.json"))
    parser.add_argument("--database", default=":memory:")
    parser.add_argument("--variant", choices=["reference", "ignores-refund", "counts-duplicates", "probes-api"], default="reference")
    parser.add_argument("--api-base-url", default=os.environ.get("MATRIX_API_BASE_URL"), help="the loopback App Store Server API")
    parser.add_argument("--api-key", default=os.environ.get("MATRIX_API_KEY"), help="the .p8 key for its tokens")
    parser.add_argument("--api-key-id", default=os.environ.get("MATRIX_API_KEY_ID"))
    parser.add_argument("--api-issuer-id", default=os.environ.get("MATRIX_API_ISSUER_ID"))
    args = parser.parse_args()
    if not args.root:
        parser.error("--root (or MATRIX_ROOT_CERTIFICATE) is required: the DER certificate of the root to trust")
    backend = Backend(args)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler_for(backend))
    if args.variant == "probes-api":
        if backend.api is None:
            parser.error("--variant probes-api needs the App Store Server API (MATRIX_API_BASE_URL and MATRIX_API_KEY)")
        # The runner posts the test notification while this call waits: the server is bound, so ask now.
        def ask():
            try:
                log(f"test notification: {backend.test_notification()}")
            except Exception as error:  # the probe's finding: every later notification is refused
                backend.broken = f"{type(error).__name__}: {error}"
                log(f"test notification probe failed: {backend.broken}")
        threading.Thread(target=ask, daemon=True).start()
    log(f"listening on 127.0.0.1:{args.port} ({args.variant})")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
