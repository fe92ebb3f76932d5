/**
 * WebSub over real sockets (W3C WebSub, https://www.w3.org/TR/websub/): a hub speaking the
 * protocol, and a subscriber.
 *
 * The hub takes a subscription (`hub.mode=subscribe`, `hub.topic`, `hub.callback`) with 202, then
 * verifies the subscriber's intent with a GET to the callback carrying `hub.mode`, `hub.topic`,
 * `hub.challenge` and `hub.lease_seconds`: only a 2xx echoing the challenge makes the subscription
 * (WebSub 5.3). It takes a publish request (`hub.mode=publish`, the topic in `hub.url` or
 * `hub.topic`) with 202, fetches the topic, and delivers its content by POST to each verified
 * subscriber of it, with the topic's Content-Type and the `Link` headers naming the hub and the
 * topic (WebSub 7). Anything else is a 400, as a hub answers.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { listen } from './http.ts';

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export interface HubPublish {
  topic: string;
  /** What the hub's fetch of the topic answered. */
  status: number;
  /** How many verified subscribers the content was delivered to. */
  delivered: number;
}

export interface WebSubHub {
  url: string;
  /** Verified subscriptions: topic → callbacks. */
  subscribers: Map<string, Set<string>>;
  /** Every publish request the hub took, with what came of it, in order. */
  publishes: HubPublish[];
  /** Problems the hub met (a failed verification, a failed delivery): empty when all went by the protocol. */
  problems: string[];
  /** Answer every publish request with this status instead (a failing hub); undefined for the protocol's 202. */
  failPublishWith: number | undefined;
  /** Resolves once `callback` is a verified subscriber of `topic`. */
  verified(topic: string, callback: string): Promise<void>;
  /** Resolves when every delivery started so far has ended. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebSubHub(): Promise<WebSubHub> {
  const subscribers = new Map<string, Set<string>>();
  const waiting: { topic: string; callback: string; done: () => void }[] = [];
  const work = new Set<Promise<void>>();
  const hub = {
    subscribers,
    publishes: [] as HubPublish[],
    problems: [] as string[],
    failPublishWith: undefined as number | undefined,
  };
  let url = '';
  const track = (job: Promise<void>) => {
    work.add(job);
    void job.finally(() => work.delete(job));
  };

  async function verify(topic: string, callback: string): Promise<void> {
    const challenge = randomUUID();
    const target = new URL(callback);
    for (const [name, value] of Object.entries({
      'hub.mode': 'subscribe',
      'hub.topic': topic,
      'hub.challenge': challenge,
      'hub.lease_seconds': '86400',
    }))
      target.searchParams.set(name, value);
    const response = await fetch(target);
    const body = await response.text();
    if (!response.ok || body !== challenge) {
      hub.problems.push(`${callback} did not confirm ${topic}: HTTP ${response.status}, ${JSON.stringify(body)}`);
      return;
    }
    if (!subscribers.has(topic)) subscribers.set(topic, new Set());
    subscribers.get(topic)!.add(callback);
    for (const w of waiting.filter((w) => w.topic === topic && w.callback === callback)) w.done();
  }

  async function distribute(topic: string): Promise<void> {
    const record: HubPublish = { topic, status: 0, delivered: 0 };
    hub.publishes.push(record);
    const fetched = await fetch(topic);
    record.status = fetched.status;
    const content = Buffer.from(await fetched.arrayBuffer());
    if (!fetched.ok) return;
    const type = fetched.headers.get('content-type') ?? 'application/octet-stream';
    for (const callback of subscribers.get(topic) ?? []) {
      const delivery = await fetch(callback, {
        method: 'POST',
        headers: { 'content-type': type, link: `<${url}>; rel="hub", <${topic}>; rel="self"` },
        body: content,
      });
      await delivery.body?.cancel();
      if (delivery.ok) record.delivered += 1;
      else hub.problems.push(`delivery of ${topic} to ${callback}: HTTP ${delivery.status}`);
    }
  }

  const server = await listen((req, res) => {
    void readBody(req).then((text) => {
      const refuse = (why: string) => res.writeHead(400, { 'content-type': 'text/plain' }).end(why);
      if (req.method !== 'POST') return refuse('a hub takes POST');
      if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
        return refuse('a hub takes application/x-www-form-urlencoded');
      const form = new URLSearchParams(text);
      const mode = form.get('hub.mode');
      if (mode === 'subscribe') {
        const topic = form.get('hub.topic');
        const callback = form.get('hub.callback');
        if (!topic || !callback) return refuse('hub.topic and hub.callback are required');
        res.writeHead(202).end();
        return track(verify(topic, callback).catch((e: Error) => void hub.problems.push(`verify: ${e.message}`)));
      }
      if (mode === 'publish') {
        if (hub.failPublishWith !== undefined) return void res.writeHead(hub.failPublishWith).end('hub failure');
        const topic = form.get('hub.url') ?? form.get('hub.topic');
        if (!topic) return refuse('hub.url is required');
        res.writeHead(202).end();
        return track(distribute(topic).catch((e: Error) => void hub.problems.push(`publish: ${e.message}`)));
      }
      refuse(`unknown hub.mode ${JSON.stringify(mode)}`);
    });
  });
  url = `${server.url}/hub`;

  return Object.assign(hub, {
    url,
    verified: (topic: string, callback: string) =>
      subscribers.get(topic)?.has(callback)
        ? Promise.resolve()
        : new Promise<void>((done) => waiting.push({ topic, callback, done })),
    settled: async () => {
      while (work.size > 0) await Promise.allSettled([...work]);
    },
    close: () => server.close(),
  });
}

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Subscriber {
  /** The callback URL the hub is given. */
  callback: string;
  /** The topics this subscriber asked for: a verification of any other is refused (WebSub 5.3). */
  wanted: Set<string>;
  /** Every content delivery received, in order. */
  deliveries: Delivery[];
  /** Ask `hub` for `topic`: the hub's answer status (202 when it takes it). */
  subscribe(hub: string, topic: string): Promise<number>;
  close(): Promise<void>;
}

/** A subscriber: a callback that confirms what it asked for by echoing the challenge, and keeps what is delivered. */
export async function startSubscriber(): Promise<Subscriber> {
  const wanted = new Set<string>();
  const deliveries: Delivery[] = [];
  const server = await listen((req, res) => {
    void readBody(req).then((body) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      if (req.method === 'GET') {
        const topic = query.get('hub.topic');
        if (query.get('hub.mode') !== 'subscribe' || !topic || !wanted.has(topic)) return void res.writeHead(404).end();
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end(query.get('hub.challenge') ?? '');
      }
      deliveries.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  const callback = `${server.url}/callback`;
  return {
    callback,
    wanted,
    deliveries,
    async subscribe(hub, topic) {
      wanted.add(topic);
      const response = await fetch(hub, {
        method: 'POST',
        body: new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.topic': topic, 'hub.callback': callback }),
      });
      await response.body?.cancel();
      return response.status;
    },
    close: () => server.close(),
  };
}
