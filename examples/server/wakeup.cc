#include "wakeup.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace blobtune::server {

boost::asio::awaitable<void> Wakeup::Wait() {
  while (!granted_) {
    boost::system::error_code ec;  // operation_aborted: Grant() cancelled the timer.
    co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  }
}

}  // namespace blobtune::server
