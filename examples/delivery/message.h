// The mail messages of a delivery run: their ids and their content, derived from a seed so that
// the server can serve them and the client can verify what it stored without sharing state.
//
// Thread-safety: pure functions.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_MESSAGE_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_MESSAGE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace blobtune::delivery {

// "msg-000042": fixed width, so ids sort in delivery order.
std::string MessageId(size_t index);

// The body of message `index`: `size` pseudo-random bytes, the same for the same (seed, index).
std::string MessageBody(uint64_t seed, size_t index, size_t size);

// The three small metadata documents the client writes per message (about 4000, 100 and 500
// bytes: headers, metadata, flags), as the real client does.
std::vector<std::string> MetadataDocuments(size_t index);

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_MESSAGE_H_
