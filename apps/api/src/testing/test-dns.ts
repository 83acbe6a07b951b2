import dns2 from "dns2";

/**
 * A DNS server on loopback (UDP) that answers TXT questions from a table the test fills in: how the SSO tests prove
 * an email domain without touching public DNS. Every other question gets an empty answer. `port` 0 picks a free
 * one; the journeys listen on the port the e2e stack's API was told (E2E_DNS_SERVER).
 */
export async function startTestDns(port = 0) {
  const txt = new Map<string, string[]>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = dns2.Packet.createResponseFromRequest(request);
      for (const question of request.questions) {
        if (question.type !== dns2.Packet.TYPE.TXT) continue;
        for (const data of txt.get(question.name.toLowerCase()) ?? []) {
          // dns2's type names its Resource class; its encoder takes a plain record, as its README shows.
          const record = { name: question.name, type: dns2.Packet.TYPE.TXT, class: dns2.Packet.CLASS.IN, ttl: 1, data };
          response.answers.push(record as unknown as (typeof response.answers)[number]);
        }
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port, address: "127.0.0.1" } });
  return {
    /** host:port, as SSO_DNS_SERVERS takes it. */
    server: `127.0.0.1:${addresses.udp!.port}`,
    publishTxt(name: string, value: string) {
      txt.set(name.toLowerCase(), [...(txt.get(name.toLowerCase()) ?? []), value]);
    },
    close: () => server.close(),
  };
}
