/*
 * A bare TCP echo server for bench:agent's S2 (one thread, epoll, one recv and one send per ready socket; no
 * framing, no metrics): what comes in goes back, so a 2-byte length prefix comes back framed as it went.
 * The reference target spends its core on each echo (it is the limit of the S2 rows against it); against this
 * one the agent is the limit, and its CPU per echo is its own. Usage: echo-server PORT (listens on 127.0.0.1).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: echo-server PORT\n");
    return 2;
  }
  int one = 1;
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (bind(listener, (struct sockaddr *)&address, sizeof(address)) < 0 || listen(listener, 1024) < 0) {
    perror("echo-server: listen");
    return 1;
  }
  socklen_t length = sizeof(address);
  getsockname(listener, (struct sockaddr *)&address, &length);
  printf("listening on %d\n", ntohs(address.sin_port));
  fflush(stdout);
  int epfd = epoll_create1(0);
  struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
  epoll_ctl(epfd, EPOLL_CTL_ADD, listener, &event);
  struct epoll_event ready[256];
  static char buffer[65536];
  for (;;) {
    int n = epoll_wait(epfd, ready, 256, -1);
    for (int i = 0; i < n; i++) {
      int fd = ready[i].data.fd;
      if (fd == listener) {
        int client;
        while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          struct epoll_event added = {.events = EPOLLIN, .data.fd = client};
          epoll_ctl(epfd, EPOLL_CTL_ADD, client, &added);
        }
        continue;
      }
      ssize_t got = recv(fd, buffer, sizeof(buffer), 0);
      if (got <= 0) {
        close(fd);
        continue;
      }
      /* Small echoes fit the socket buffer; a short send only happens to a client that stopped reading. */
      send(fd, buffer, (size_t)got, MSG_NOSIGNAL);
    }
  }
}
