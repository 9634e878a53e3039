// A free loopback port for the servers a test starts itself (MinIO, devmail,
// a `make run` cluster): the kernel's choice, probed and released. Like
// platform/pgcluster.FreePort, the port is only free until someone binds it.
import { createServer } from 'node:net';

/** A loopback TCP port nothing listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}
