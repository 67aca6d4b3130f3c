#include "cluster_adapter/redis/redis_connection.h"

#include <hiredis/hiredis.h>

#include <stdexcept>

#include "data/error.h"
#include "data/redaction.h"

namespace millrace::cluster_adapter {

namespace {

RedisReply copy_reply(const redisReply* reply) {
  RedisReply out;
  switch (reply->type) {
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::kString;
      out.text.assign(reply->str, reply->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::kStatus;
      out.text.assign(reply->str, reply->len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = reply->integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      for (std::size_t i = 0; i < reply->elements; ++i) out.elements.push_back(copy_reply(reply->element[i]));
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::kError;
      out.text.assign(reply->str, reply->len);
      break;
    default:
      break;
  }
  return out;
}

const char* type_name(RedisReply::Type type) {
  switch (type) {
    case RedisReply::Type::kNil: return "nil";
    case RedisReply::Type::kString: return "a string";
    case RedisReply::Type::kInteger: return "an integer";
    case RedisReply::Type::kArray: return "an array";
    case RedisReply::Type::kStatus: return "a status";
    case RedisReply::Type::kError: return "an error";
  }
  return "an unknown reply";
}

}  // namespace

RedisConnection::RedisConnection(const std::string& given, data::Micros timeout) : timeout_(timeout) {
  std::string_view address = given;
  if (address.rfind("redis://", 0) == 0) address.remove_prefix(8);
  if (const std::size_t at = address.rfind('@'); at != std::string_view::npos) {
    const std::string_view credentials = address.substr(0, at);
    const std::size_t colon = credentials.find(':');
    if (colon != std::string_view::npos) user_ = std::string(credentials.substr(0, colon));
    password_ = std::string(colon == std::string_view::npos ? credentials : credentials.substr(colon + 1));
    data::register_secret(password_);
    address.remove_prefix(at + 1);
  }
  name_ = "redis " + std::string(address);
  if (!user_.empty() && password_.empty()) {
    throw data::Error(name_, "user " + user_ + " without a password (USER:PASSWORD@)");
  }
  const std::size_t colon = address.rfind(':');
  try {
    if (colon == std::string::npos || colon == 0) throw std::invalid_argument(name_);
    host_ = std::string(address.substr(0, colon));
    const std::string port(address.substr(colon + 1));
    std::size_t used = 0;
    port_ = std::stoi(port, &used);
    if (used != address.size() - colon - 1 || port_ < 1 || port_ > 65535) throw std::invalid_argument(port);
  } catch (const std::logic_error&) {
    throw data::Error(name_, "expected HOST:PORT, PASSWORD@HOST:PORT or USER:PASSWORD@HOST:PORT (redis:// in front optional)");
  }
}

RedisConnection::~RedisConnection() { disconnect(); }

void RedisConnection::disconnect() {
  if (context_) redisFree(context_);
  context_ = nullptr;
}

void RedisConnection::connect() {
  if (context_) return;
  const timeval tv{static_cast<time_t>(timeout_ / data::kMicrosPerSecond),
                   static_cast<suseconds_t>(timeout_ % data::kMicrosPerSecond)};
  context_ = redisConnectWithTimeout(host_.c_str(), port_, tv);
  if (!context_ || context_->err) {
    const std::string problem = context_ ? context_->errstr : "cannot allocate a connection";
    disconnect();
    throw data::Error(name_, "cannot connect: " + problem);
  }
  redisSetTimeout(context_, tv);
  if (!password_.empty()) authenticate();
}

void RedisConnection::authenticate() {
  std::vector<std::string> auth = {"AUTH", password_};
  if (!user_.empty()) auth = {"AUTH", user_, password_};
  try {
    send(auth);
    receive();
  } catch (const data::Error& e) {
    if (context_ == nullptr) throw;  // the connection failed: retried like any other
    disconnect();
    throw data::Error(name_ + " AUTH", "refused: " + e.problem());
  }
}

void RedisConnection::send(const std::vector<std::string>& args) {
  connect();
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  if (redisAppendCommandArgv(context_, static_cast<int>(args.size()), argv.data(), lengths.data()) != REDIS_OK) {
    const std::string problem = context_->errstr;
    disconnect();
    throw data::Error(name_, "cannot send " + args.front() + ": " + problem);
  }
}

RedisReply RedisConnection::receive() {
  void* raw = nullptr;
  if (redisGetReply(context_, &raw) != REDIS_OK || raw == nullptr) {
    const std::string problem = context_->errstr;
    disconnect();
    throw data::Error(name_, "connection lost: " + problem);
  }
  auto* reply = static_cast<redisReply*>(raw);
  if (reply->type == REDIS_REPLY_ERROR) {
    const std::string problem(reply->str, reply->len);
    freeReplyObject(reply);
    throw data::Error(name_, problem);
  }
  RedisReply out = copy_reply(reply);
  freeReplyObject(reply);
  return out;
}

RedisReply RedisConnection::command(const std::vector<std::string>& args) {
  send(args);
  return receive();
}

std::vector<RedisReply> RedisConnection::transaction(const std::vector<std::vector<std::string>>& commands) {
  try {
    send({"MULTI"});
    for (const auto& c : commands) send(c);
    send({"EXEC"});
    receive();
    for (std::size_t i = 0; i < commands.size(); ++i) receive();
    RedisReply exec = receive();
    if (exec.type != RedisReply::Type::kArray) throw data::Error(name_, "transaction aborted");
    if (exec.elements.size() != commands.size()) {
      throw data::Error(name_, "EXEC answered " + std::to_string(exec.elements.size()) + " replies for " +
                                   std::to_string(commands.size()) + " commands");
    }
    return exec.elements;
  } catch (const data::Error&) {
    disconnect();  // replies of the half-read transaction must not reach the next command
    throw;
  }
}

std::vector<std::string> RedisConnection::strings(const std::vector<std::string>& args) {
  RedisReply reply = command(args);
  if (reply.type != RedisReply::Type::kArray) throw data::Error(name_, args.front() + " did not return an array");
  std::vector<std::string> out;
  for (RedisReply& e : reply.elements) out.push_back(std::move(e.text));
  return out;
}

void RedisConnection::check_not_error(const RedisReply& reply, const std::string& command) const {
  if (reply.type == RedisReply::Type::kError) throw data::Error(name_, command + " answered the error '" + reply.text + "'");
}

std::vector<std::string> RedisConnection::string_array(const RedisReply& reply, const std::string& command,
                                                      bool nil_allowed) const {
  check_not_error(reply, command);
  if (reply.type != RedisReply::Type::kArray) {
    throw data::Error(name_, command + " answered " + type_name(reply.type) + ", not an array");
  }
  std::vector<std::string> out;
  for (const RedisReply& e : reply.elements) {
    if (e.type != RedisReply::Type::kString && !(nil_allowed && e.type == RedisReply::Type::kNil)) {
      throw data::Error(name_, command + " answered an array holding " + type_name(e.type) + ", not only strings");
    }
    out.push_back(e.text);
  }
  return out;
}

std::int64_t RedisConnection::integer(const RedisReply& reply, const std::string& command) const {
  check_not_error(reply, command);
  if (reply.type != RedisReply::Type::kInteger) {
    throw data::Error(name_, command + " answered " + type_name(reply.type) + ", not an integer");
  }
  return reply.integer;
}

}  // namespace millrace::cluster_adapter
