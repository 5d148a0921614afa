#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/objects.h>
#include <openssl/core_names.h>

// Small wrappers for OpenSSL macros and variadic functions, which Swift cannot import.

/// Frees memory allocated by OpenSSL (OPENSSL_free is a macro).
static inline void skm_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

/// Generates a fresh P-256 key pair (EVP_EC_gen is a macro over a variadic function).
static inline EVP_PKEY *skm_generate_p256_key(void) {
    return EVP_EC_gen("P-256");
}

/// Length and start of a memory BIO's contents (BIO_get_mem_data is a macro).
static inline long skm_bio_mem_contents(BIO *bio, const char **data) {
    char *pointer = NULL;
    long length = BIO_get_mem_data(bio, &pointer);
    *data = pointer;
    return length;
}

/// Print flags for distinguished names: RFC 2253 with UTF-8 kept as is (XN_FLAG_RFC2253 is a compound macro).
static inline unsigned long skm_name_print_flags(void) {
    return XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB;
}

/// A new, empty certificate stack that does not own its elements' references.
static inline STACK_OF(X509) *skm_x509_stack_new(void) {
    return sk_X509_new_null();
}

/// Appends a certificate (no reference taken); returns the new count, or 0 on failure.
static inline int skm_x509_stack_push(STACK_OF(X509) *stack, X509 *certificate) {
    return sk_X509_push(stack, certificate);
}

/// Number of certificates on a stack.
static inline int skm_x509_stack_count(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

/// The certificate at an index (borrowed).
static inline X509 *skm_x509_stack_get(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

/// Frees the stack only; the certificates' references are untouched.
static inline void skm_x509_stack_free(STACK_OF(X509) *stack) {
    sk_X509_free(stack);
}

/// Frees the stack and drops one reference on every certificate in it.
static inline void skm_x509_stack_free_all(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

#endif
