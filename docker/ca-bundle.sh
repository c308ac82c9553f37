#!/usr/bin/env bash
# Prints the CA bundle that pip inside a container build should trust, or nothing.
# Behind a TLS-re-signing proxy the host sets SSL_CERT_FILE or PIP_CERT; CI may not,
# so fall back to the system bundle (which holds the proxy's CA there, and is harmless
# anywhere else).
for f in "${PIP_CERT:-}" "${SSL_CERT_FILE:-}" /etc/ssl/certs/ca-certificates.crt; do
  [[ -n "$f" && -s "$f" ]] && { echo "$f"; exit 0; }
done
