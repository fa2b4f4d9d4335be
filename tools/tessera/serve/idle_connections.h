// Ending a server's open connections when it stops. cpp-httplib serves each connection
// on a pool thread until the client closes it or its keep-alive time runs out, and
// stopping the server waits for those threads: a client that keeps an idle connection
// open would hold the shutdown up for the whole keep-alive time. The library does not
// expose the sockets, so they are found among the process's descriptors.
#pragma once

namespace tessera::serve {

// Shuts down (both directions) every TCP socket of this process whose local port is
// `port`, except the listening one: a thread waiting on one then sees it closed at once.
// Call once the server has stopped accepting and its calls are over.
void shut_down_connections(int port);

}  // namespace tessera::serve
