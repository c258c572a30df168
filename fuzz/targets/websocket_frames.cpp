// Fuzz target: WebSocket frames and messages as a client sends them to supportd's own server
// (http/server.h, websocket_session.cpp) on a loopback port, after a valid handshake to a
// socket that decodes each message as the desk's customer socket does and answers it. The
// input's first byte chooses how the rest is sent:
//   even: as it is (Beast's frame parser: opcodes, reserved bits, lengths in all three
//         encodings, masks, fragments, control frames in between, close codes, UTF-8);
//   odd:  as frames the target builds from it, each a header byte (FIN, RSV, opcode) and a
//         length byte from the input (its top bit: masked or not; 126 and 127 stand for 300 and
//         1500 bytes), a mask key from the input, then the payload, so that whole messages
//         reach the decoding more often.
// The client then half-closes and reads until the server closes. Properties besides "no crash,
// leak, undefined behaviour or hang": the handshake is answered 101, and everything the server
// sends after it is whole, well-formed server frames (unmasked, no reserved bits, a known
// opcode, control frames whole and short), its text messages valid UTF-8; the server closes
// within its timeouts, and then ends the socket: its handler is told on_close.
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "fuzz_check.h"
#include "http/server.h"
#include "loopback_client.h"

using namespace supportd;

namespace {

constexpr std::string_view kHandshake =
    "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

struct Fixture {
  std::unique_ptr<http::Server> server;

  Fixture() {
    http::ServerOptions options;
    options.port = 0;
    options.read_timeout = std::chrono::milliseconds(2000);
    options.idle_timeout = std::chrono::milliseconds(2000);
    options.write_timeout = std::chrono::milliseconds(2000);
    options.websocket_message_limit = 1024;
    options.stream_buffer_limit = 64 * 1024;
    server = fuzz::start_server(options, [](http::Request& request) {
      if (!request.websocket_upgrade) return http::error_response(426, "upgrade", "invalid");
      return http::Response::upgrade(std::make_shared<fuzz::SocketEcho>());
    });
  }
};

// Reads the input from the front, a byte or a run of bytes at a time (zeros once it ends).
class Input {
 public:
  explicit Input(std::string_view bytes) : bytes_(bytes) {}
  bool empty() const { return bytes_.empty(); }
  std::size_t size() const { return bytes_.size(); }
  unsigned char byte() {
    if (bytes_.empty()) return 0;
    const auto b = static_cast<unsigned char>(bytes_.front());
    bytes_.remove_prefix(1);
    return b;
  }
  std::string_view take(std::size_t n) {
    const std::string_view run = bytes_.substr(0, n);
    bytes_.remove_prefix(run.size());
    return run;
  }

 private:
  std::string_view bytes_;
};

// Client frames built from `input` (see the opening comment), with lengths always encoded as
// the protocol's shortest form allows and payloads masked with the input's key when masked.
std::string frames_from(Input input) {
  std::string out;
  while (!input.empty()) {
    const unsigned char first = input.byte();
    const unsigned char second = input.byte();
    const bool masked = (second & 0x80) != 0;
    unsigned char mask[4] = {0, 0, 0, 0};
    if (masked) {
      for (unsigned char& m : mask)
        m = input.byte();
    }
    // 126 and 127 stand for longer payloads: one in the 16-bit encoding, one over the limit.
    const std::size_t wanted = second & 0x7f;
    const std::string_view payload = input.take(wanted == 126   ? 300
                                                : wanted == 127 ? 1500
                                                                : wanted);
    out += static_cast<char>(first);
    const std::size_t length = payload.size();
    const auto mask_bit = static_cast<unsigned char>(masked ? 0x80 : 0);
    if (length < 126) {
      out += static_cast<char>(mask_bit | length);
    } else {
      out += static_cast<char>(mask_bit | 126);
      out += static_cast<char>(length >> 8);
      out += static_cast<char>(length & 0xff);
    }
    if (masked) out.append(reinterpret_cast<const char*>(mask), 4);
    for (std::size_t i = 0; i < length; ++i)
      out += static_cast<char>(payload[i] ^ mask[i % 4]);
  }
  return out;
}

// Checks that `bytes` are whole, well-formed frames as a server sends them.
void check_server_frames(std::string_view bytes) {
  Input in(bytes);
  while (!in.empty()) {
    fuzz::require(in.size() >= 2, "a server frame's header is whole");
    const unsigned char first = in.byte();
    const unsigned char second = in.byte();
    const unsigned opcode = first & 0x0f;
    fuzz::require((first & 0x70) == 0, "a server frame sets no reserved bit");
    fuzz::require(opcode <= 2 || (opcode >= 8 && opcode <= 10), "a server frame's opcode is known");
    fuzz::require((second & 0x80) == 0, "a server frame is not masked");
    std::uint64_t length = second & 0x7f;
    const int extra = length == 126 ? 2 : length == 127 ? 8 : 0;
    if (extra > 0) {
      const std::string_view field = in.take(static_cast<std::size_t>(extra));
      fuzz::require(field.size() == static_cast<std::size_t>(extra), "a length is whole");
      length = 0;
      for (char c : field)
        length = (length << 8) | static_cast<unsigned char>(c);
    }
    if (opcode >= 8) {
      fuzz::require((first & 0x80) != 0 && length <= 125, "a control frame is whole and short");
    }
    const std::string_view payload = in.take(static_cast<std::size_t>(length));
    fuzz::require(payload.size() == length, "a server frame is whole");
    if (opcode == 1 && (first & 0x80) != 0) {
      fuzz::require(is_valid_utf8(payload), "a text message is UTF-8");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture fixture;
  Input input(fuzz::text_of(data, size));
  const bool built = (input.byte() & 1) != 0;
  const std::string frames = built ? frames_from(input) : std::string(input.take(size));

  const int fd = fuzz::connect_loopback(fixture.server->port());
  fuzz::send_all(fd, kHandshake);
  // A client sends frames once the handshake is answered (RFC 6455, 4.1).
  std::string received;
  fuzz::receive(fd, received, [](const std::string& r) { return r.find("\r\n\r\n") != r.npos; });
  const std::size_t head_end = received.find("\r\n\r\n");
  fuzz::require(head_end != std::string::npos, "the handshake is answered");
  fuzz::require(received.rfind("HTTP/1.1 101 ", 0) == 0, "the handshake is accepted");
  fuzz::send_all(fd, frames);
  ::shutdown(fd, SHUT_WR);
  received += fuzz::receive_until_closed(fd);
  ::close(fd);
  check_server_frames(std::string_view(received).substr(head_end + 4));
  // The server shuts the socket before its coroutines unwind (a close past its bound): they end
  // soon after, not never.
  const auto deadline = std::chrono::steady_clock::now() + fuzz::kServerBound;
  while (fuzz::SocketEcho::open_sockets() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  fuzz::require(fuzz::SocketEcho::open_sockets() == 0,
                "a socket the server closed ends: its handler is told on_close");
  return 0;
}
