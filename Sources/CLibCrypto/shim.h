// The system's OpenSSL digests (libcrypto, Debian's libssl-dev): SHA-256 without building BoringSSL.
#include <openssl/evp.h>
