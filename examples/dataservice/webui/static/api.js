// api.js: the service's API as the page uses it.
//
// Calls go over HTTP: POST /api/<function> with a JSON body. The session token travels in the
// HttpOnly Svc-Session cookie the server set at login; this code never sees it.
//
// Live queries (stream calls with follow: true) go over the WebSocket at /api/ws, or over HTTP
// streaming (NDJSON from /api/stream/<function>). The switch is the `live` option:
// "ws" (WebSocket only), "http" (HTTP streaming only) or "auto" (WebSocket, falling back to
// HTTP streaming when a WebSocket cannot be opened).

export const AUTH_NEEDED = 'API-AUTHENTICATION-NEEDED';

// APIError is an error message of the service: code is its code ("QUERY-SYNTAX"), attrs its
// other attributes (position, expected, name, reason...).
export class APIError extends Error {
  constructor(msg) {
    const {type, error, id, ...attrs} = msg;
    super(describeError(error, attrs));
    this.code = error;
    this.attrs = attrs;
  }
}

// describeError says in words what an error message means.
export function describeError(code, a = {}) {
  switch (code) {
    case 'QUERY-SYNTAX':
      return `QUERY-SYNTAX at position ${a.position}: expected ${a.expected}` +
        (a.message ? ` (${a.message})` : '');
    case 'INVALID-CREDENTIALS':
      return 'Wrong user name or password.';
    case 'RATE-LIMITED':
      return `Too many attempts: try again in ${a.retry_after} s.`;
    case AUTH_NEEDED:
      return 'Please sign in.';
    case 'NOT-FOUND':
      return `${a.object || 'Object'} ${a.name ?? ''} not found.`;
    case 'INVALID-ARGUMENT':
      return `Invalid ${a.name}: ${a.reason}`;
    case 'LIMIT-REACHED':
      return `Too many ${a.name} (the limit is ${a.limit}).`;
    case 'TOO-MANY-GROUPS':
      return `TOO-MANY-GROUPS: ${a.reason}`;
    case 'NETWORK':
      return 'The service cannot be reached. Check the connection and try again.';
    case 'INTERNAL-ERROR':
      return 'The service failed to answer (INTERNAL-ERROR). Its log has the details.';
  }
  const rest = Object.keys(a).length ? ' ' + JSON.stringify(a) : '';
  return `${code}${rest}`;
}

// API calls the service's functions and runs live queries.
export class API {
  // options: base (the API's path, "/api"), live ("auto", "ws" or "http"), onAuthNeeded (called
  // when an answer says the session is missing or over), onLiveState (called with "live",
  // "reconnecting" or "off" when the live connection changes).
  constructor({base = '/api', live = 'auto', onAuthNeeded = () => {}, onLiveState = () => {}} = {}) {
    this.base = base;
    this.live = live;
    this.onAuthNeeded = onAuthNeeded;
    this.onLiveState = onLiveState;
    this.socket = null;
  }

  // message calls fn with args at version (the latest when empty) and returns the message the
  // service answers, a result or an error ("NETWORK" when none came).
  async message(fn, args = {}, version = '') {
    let res;
    try {
      res = await fetch(`${this.base}/${version ? `${version}/` : ''}${fn}`, {
        method: 'POST',
        headers: {'Content-Type': 'application/json', 'Accept': 'application/json'},
        body: JSON.stringify(args),
        credentials: 'same-origin',
        cache: 'no-store',
      });
    } catch {
      return {type: 'error', error: 'NETWORK'};
    }
    try {
      return await res.json();
    } catch {
      return {type: 'error', error: 'BAD-ANSWER', status: res.status};
    }
  }

  // call calls fn with args and returns its result; it throws an APIError.
  async call(fn, args = {}) {
    const msg = await this.message(fn, args);
    if (msg.type === 'result') return msg.result;
    throw this.toError(msg);
  }

  // toError turns an error message into an APIError, reporting a lost session.
  toError(msg) {
    const err = msg instanceof APIError ? msg : new APIError(msg);
    if (err.code === AUTH_NEEDED) this.onAuthNeeded(err);
    return err;
  }

  // follow starts a live stream call of fn: onChunk(chunk) receives each chunk, onError(err)
  // an APIError that ended it. A stream the server ends (its streams last at most an hour by
  // default, then end with TIMEOUT) starts again. It returns a function that stops it.
  follow(fn, args, {onChunk, onError}) {
    let stop = null;
    let stopped = false;
    let timer;
    const again = () => {
      if (!stopped) timer = setTimeout(start, 1000);
    };
    const start = () => {
      stop = this.stream({
        fn, args, onChunk,
        onEnd: again,
        onError: (e) => {
          const err = this.toError(e);
          if (stopped) return;
          if (err.code === 'TIMEOUT') again();
          else onError(err);
        },
      });
    };
    start();
    return () => {
      stopped = true;
      clearTimeout(timer);
      stop?.();
    };
  }

  // stream runs one stream call sub ({fn, args, onChunk, onEnd, onError}) over the WebSocket or
  // HTTP streaming, and returns a function that cancels it.
  stream(sub) {
    if (this.live === 'http' || (this.live === 'auto' && this.socket?.failed)) {
      return this.followHTTP(sub);
    }
    this.socket ??= new Socket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${this.base}/ws`,
      this.onLiveState, () => this.live === 'auto');
    let stop = this.socket.stream(sub, () => {
      // The WebSocket could not be opened at all: continue over HTTP streaming.
      stop = this.followHTTP(sub);
    });
    return () => stop();
  }

  // followHTTP runs sub over HTTP streaming, again after a pause when the connection breaks.
  followHTTP(sub) {
    this.onLiveState('live');
    const ctrl = new AbortController();
    const run = async () => {
      while (!ctrl.signal.aborted) {
        try {
          await this.streamHTTP(sub.fn, sub.args, ctrl.signal, (msg) => {
            if (msg.type === 'chunk') sub.onChunk(msg.chunk);
            else if (msg.type === 'error') throw new APIError(msg);
          });
          sub.onEnd();
          return;
        } catch (e) {
          if (ctrl.signal.aborted) return;
          if (e instanceof APIError && e.code !== 'NETWORK') {
            sub.onError(e);
            return;
          }
        }
        this.onLiveState('reconnecting');
        await sleep(3000, ctrl.signal);
      }
    };
    run();
    return () => ctrl.abort();
  }

  // streamHTTP posts a stream call and gives each NDJSON message to onMessage until the end.
  async streamHTTP(fn, args, signal, onMessage) {
    let res;
    try {
      res = await fetch(`${this.base}/stream/${fn}`, {
        method: 'POST',
        headers: {'Content-Type': 'application/json', 'Accept': 'application/x-ndjson'},
        body: JSON.stringify(args),
        credentials: 'same-origin',
        cache: 'no-store',
        signal,
      });
    } catch {
      throw new APIError({error: 'NETWORK'});
    }
    if (!res.ok) {
      const msg = await res.json().catch(() => ({error: 'BAD-ANSWER', status: res.status}));
      throw new APIError(msg);
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      let part;
      try {
        part = await reader.read();
      } catch {
        throw new APIError({error: 'NETWORK'});
      }
      if (part.done) break;
      buf += part.value;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const msg = JSON.parse(line);
        onMessage(msg);
        if (msg.type === 'end') return;
      }
    }
    throw new APIError({error: 'NETWORK'}); // the stream broke before its end
  }

  // close ends the live connection (at sign-out: the next one carries the next session).
  close() {
    this.socket?.close();
    this.socket = null;
  }
}

// Socket is one WebSocket connection multiplexing stream calls; it reconnects after a break
// and starts its calls again.
class Socket {
  constructor(url, onState, mayFallBack) {
    this.url = url;
    this.onState = onState;
    this.mayFallBack = mayFallBack;
    this.subs = new Map(); // call id -> {sub, onFail}
    this.next = 1;
    this.ws = null;
    this.opened = false; // a connection was open once
    this.failed = false; // it never opened: the page uses HTTP streaming
    this.closed = false;
    this.retry = 1000;
  }

  // stream starts sub on the connection; onFail runs instead when no WebSocket can be opened
  // and falling back is allowed. It returns a function that cancels the call.
  stream(sub, onFail) {
    const id = `w${this.next++}`;
    this.subs.set(id, {sub, onFail});
    this.connect();
    if (this.ws?.readyState === WebSocket.OPEN) this.send({id, stream: sub.fn, args: sub.args});
    return () => {
      if (!this.subs.delete(id)) return;
      if (this.ws?.readyState === WebSocket.OPEN) {
        this.send({id: `c${this.next++}`, call: 'cancel', args: {id}});
      }
    };
  }

  connect() {
    if (this.ws || this.closed) return;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.opened = true;
      this.retry = 1000;
      this.onState('live');
      for (const [id, {sub}] of this.subs) this.send({id, stream: sub.fn, args: sub.args});
    };
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      if (!this.opened && this.mayFallBack()) {
        this.failed = true;
        const subs = [...this.subs.values()];
        this.subs.clear();
        for (const {onFail} of subs) onFail();
        return;
      }
      this.onState('reconnecting');
      setTimeout(() => { if (this.subs.size) this.connect(); }, this.retry);
      this.retry = Math.min(this.retry * 2, 15000);
    };
  }

  send(msg) {
    this.ws.send(JSON.stringify(msg));
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    const entry = this.subs.get(msg.id);
    if (!entry) return; // a cancel's answer, or a call already stopped
    if (msg.type === 'chunk') {
      entry.sub.onChunk(msg.chunk);
    } else if (msg.type === 'error') {
      this.subs.delete(msg.id);
      entry.sub.onError(msg);
    } else if (msg.type === 'end') {
      this.subs.delete(msg.id);
      entry.sub.onEnd();
    }
  }

  close() {
    this.closed = true;
    this.subs.clear();
    this.ws?.close(1000);
    this.ws = null;
    this.onState('off');
  }
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, {once: true});
  });
}
