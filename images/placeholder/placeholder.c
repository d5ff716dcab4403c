/*
 * svc/placeholder: what every container of a Kubernetes stage pod runs until its step starts.
 * The image holds this program as /bin/sh (and as its entrypoint), so whatever command or
 * arguments the pod spec gives a container, the placeholder only waits. SIGTERM and SIGINT end
 * it at once with status 0, so that swapping a container's image (the kubelet stops the old one)
 * costs no grace period. Built statically by scripts/images.sh: the image has no other file.
 */
#include <signal.h>
#include <unistd.h>

static void stop(int signal_number) {
  (void)signal_number;
  _exit(0);
}

int main(void) {
  signal(SIGTERM, stop);
  signal(SIGINT, stop);
  for (;;) pause();
}
