// Standard base64 (RFC 4648) decoding, for the *-data fields of a kubeconfig.
#pragma once

#include <optional>
#include <string>

namespace millrace::cluster_adapter {

// Decodes `text` (whitespace ignored, padding optional); empty when it is not base64.
std::optional<std::string> base64_decode(const std::string& text);

}  // namespace millrace::cluster_adapter
