// One connection to a Redis server (hiredis), for the work-queue adapter: commands as argument
// vectors (binary safe, no quoting), replies copied out of hiredis. Any I/O failure closes the
// connection and throws data::Error naming "redis HOST:PORT"; the next command reconnects, so
// a caller that catches, waits and retries rides out a restarted server.
// A server that requires a password is given one in the address, "[redis://][[USER:]PASSWORD@]
// HOST:PORT" (a lone credential before '@' is the password, never a user name): each connection
// starts with AUTH. The password never appears in the connection's
// name and is registered with the redaction layer (data/redaction.h), so a server or proxy that
// echoes it in an error does not put it on any screen; a refused AUTH is an error of its own
// (input "redis HOST:PORT AUTH"), not a connection failure to retry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/time.h"

struct redisContext;

namespace millrace::cluster_adapter {

struct RedisReply {
  enum class Type { kNil, kString, kInteger, kArray, kStatus, kError };
  Type type = Type::kNil;
  std::string text;                 // string, status or error (an element of EXEC's answer)
  std::int64_t integer = 0;
  std::vector<RedisReply> elements; // array
};

class RedisConnection {
 public:
  // "[redis://][[USER:]PASSWORD@]HOST:PORT"; throws data::Error for a malformed address (no
  // connection is made yet).
  explicit RedisConnection(const std::string& address, data::Micros timeout = 2 * data::kMicrosPerSecond);
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;
  ~RedisConnection();

  const std::string& name() const { return name_; }
  // Runs one command; throws data::Error on a connection failure or an error reply.
  RedisReply command(const std::vector<std::string>& args);
  // Runs the commands inside MULTI/EXEC; returns EXEC's replies, one per command (an EXEC
  // answering another count is an error).
  std::vector<RedisReply> transaction(const std::vector<std::vector<std::string>>& commands);
  // Strings of an array reply (LRANGE, SMEMBERS); throws when the reply is not an array.
  std::vector<std::string> strings(const std::vector<std::string>& args);

  // Checked reads of a reply: a reply of another type is the server's fault, thrown as a
  // data::Error naming the server and `command` (callers retry it as they retry a lost connection);
  // an error reply is quoted (a command inside MULTI answers its error as EXEC's element).
  // An array of strings; nil elements only where `nil_allowed` (MGET), read as empty strings.
  std::vector<std::string> string_array(const RedisReply& reply, const std::string& command,
                                        bool nil_allowed = false) const;
  std::int64_t integer(const RedisReply& reply, const std::string& command) const;

 private:
  void check_not_error(const RedisReply& reply, const std::string& command) const;
  void connect();
  void authenticate();
  void disconnect();
  void send(const std::vector<std::string>& args);
  RedisReply receive();

  std::string name_;
  std::string host_;
  int port_ = 0;
  std::string user_;      // empty: AUTH with the password alone (the default user)
  std::string password_;  // empty: no AUTH
  data::Micros timeout_;
  redisContext* context_ = nullptr;
};

}  // namespace millrace::cluster_adapter
