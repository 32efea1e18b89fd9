#include "local_work.h"

#include <openssl/evp.h>

#include <array>
#include <memory>

namespace blobtune::delivery {

Status EncryptPayload(std::string_view id, std::string_view plaintext, std::string* out) {
  // A demo key schedule: the point is the cost of real AES-GCM, not key management.
  std::array<unsigned char, 32> key{};
  std::array<unsigned char, 12> nonce{};
  for (size_t i = 0; i < id.size(); ++i) {
    key[i % key.size()] ^= static_cast<unsigned char>(id[i]);
    nonce[i % nonce.size()] += static_cast<unsigned char>(id[i]);
  }
  std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(),
                                                                       &EVP_CIPHER_CTX_free);
  if (ctx == nullptr) return Status::Internal("EVP_CIPHER_CTX_new failed");
  if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), nonce.data()) != 1) {
    return Status::Internal("AES-256-GCM init failed");
  }
  out->resize(plaintext.size() + 16);
  auto* dst = reinterpret_cast<unsigned char*>(out->data());
  int written = 0;
  int final_written = 0;
  if (EVP_EncryptUpdate(ctx.get(), dst, &written,
                        reinterpret_cast<const unsigned char*>(plaintext.data()),
                        static_cast<int>(plaintext.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), dst + written, &final_written) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, 16, dst + written + final_written) !=
          1) {
    return Status::Internal("AES-256-GCM encryption failed");
  }
  out->resize(static_cast<size_t>(written + final_written) + 16);
  return Status();
}

}  // namespace blobtune::delivery
