// Closing: connections with no request in progress end at once. Node's server.close() ends
// idle keep-alive connections, but neither one that has sent no request yet (a client's
// spare connection: undici leaves one after a fetch aborted mid-response, as a viewer of a
// live run that goes away does; browsers open them ahead) nor one whose response ends after
// the close began (a live stream that closeAll ended): either held the close until
// MESHBENCH_SHUTDOWN_TIMEOUT_MS. Requests in progress still finish; their connection ends
// after their response.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';

type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

export default fp(
  async (app) => {
    const sockets = new Set<HttpSocket>();
    app.server.on('connection', (socket: HttpSocket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    const endWhenIdle = (socket: HttpSocket) => {
      if (socket.destroyed) return;
      // Node sets the response being written on its socket and clears it at the response's end.
      const response = socket._httpMessage;
      if (!response) {
        socket.destroy();
        return;
      }
      // The next request on a keep-alive connection, if one came, gets its turn the same way.
      response.once('close', () => setImmediate(() => endWhenIdle(socket)));
    };
    app.addHook('preClose', async () => {
      for (const socket of sockets) endWhenIdle(socket);
    });
  },
  { name: 'idle-connections' },
);
