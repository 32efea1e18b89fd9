// ReserveReceiveRoom: gives a Beast flat_buffer room for kReceiveChunkBytes per receive before
// a body is read through it. Beast receives at most the buffer's free capacity (but at least
// 512 bytes) at a time, and a body parser empties the buffer as fast as it fills, so a buffer
// left at a header's size takes a body 512 bytes per receive (measured on blobtune-server: 160
// recvmsg calls per 64 KiB PUT, 2.6 with the room).
//
//   beast::flat_buffer buffer;
//   examples::ReserveReceiveRoom(buffer);
//   co_await http::async_read(stream, buffer, parser, ...);
//
// Thread-safety: as the buffer's.
#ifndef BLOBTUNE_EXAMPLES_COMMON_RECEIVE_BUFFER_H_
#define BLOBTUNE_EXAMPLES_COMMON_RECEIVE_BUFFER_H_

#include <boost/beast/core/flat_buffer.hpp>
#include <cstddef>

namespace blobtune::examples {

// The most one receive takes.
inline constexpr size_t kReceiveChunkBytes = 64 * 1024;

inline void ReserveReceiveRoom(boost::beast::flat_buffer& buffer) {
  buffer.reserve(kReceiveChunkBytes);
}

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_RECEIVE_BUFFER_H_
