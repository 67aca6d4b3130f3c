// Graceful shutdown on SIGINT / SIGTERM for a real run. The handlers only write a byte to a
// self-pipe; the event loop's cluster watches fd() alongside its other events, so a Ctrl-C
// wakes it at once and the run stops on the loop's own thread (in-flight attempts are killed
// and recorded as cancelled rather than lost). One ShutdownSignal may exist at a time; its
// destructor restores the previous handlers.
#pragma once

namespace millrace::cluster_adapter {

class ShutdownSignal {
 public:
  ShutdownSignal();
  ~ShutdownSignal();
  ShutdownSignal(const ShutdownSignal&) = delete;
  ShutdownSignal& operator=(const ShutdownSignal&) = delete;

  // Readable once a shutdown was requested (by a signal or by request()).
  int fd() const { return read_fd_; }
  // True once a shutdown was requested; stays true.
  bool requested();
  // Requests a shutdown as SIGINT would (tests, programmatic stops).
  void request();

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
  bool requested_ = false;
};

}  // namespace millrace::cluster_adapter
