// api.js: the service's API as the page uses it.
//
// Calls go over HTTP: POST /api/<function> with a JSON body. The session token travels in the
// HttpOnly Svc-Session cookie the server set at login; this code never sees it. The polls of
// functions that change nothing (read) are GETs with the ETag of their last answer: the server
// answers 304 without a body while it is the same, and the page uses the answer it kept.
//
// Live queries (stream calls with follow: true) go over the WebSocket at /api/ws, or over HTTP
// streaming (NDJSON from /api/stream/<function>). The switch is the `live` option:
// "ws" (WebSocket only), "http" (HTTP streaming only) or "auto" (WebSocket, falling back to
// HTTP streaming when a WebSocket cannot be opened).

export const AUTH_NEEDED = 'API-AUTHENTICATION-NEEDED';

// A followed call that broke is started again after RETRY_MIN, then twice as long each time up
// to RETRY_MAX (ms); one silent for SILENCE (ms) is taken for dead (followed queries answer
// every few seconds).
const RETRY_MIN = 500;
const RETRY_MAX = 3000;
const SILENCE = 30000;

// The answers read keeps, for If-None-Match: the last KEPT reads (by URL) of the session.
const KEPT = 32;

// transient tells whether an error only interrupted a call, which may then be made again: the
// service was unreachable, shutting down or draining (CANCELLED), busy or behind a proxy that
// lost its node; not a mistake in the call, nor a lost session.
export function transient(err) {
  switch (err.code) {
    case 'NETWORK': case 'BAD-ANSWER': case 'CANCELLED': case 'TIMEOUT': case 'UNAVAILABLE':
    case 'INTERNAL-ERROR': case 'RATE-LIMITED': case 'OVERLOADED':
      return true;
    case 'LIMIT-REACHED':
      return err.attrs?.name === 'follow streams'; // those of a connection that broke, still ending
  }
  return false;
}

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
    case 'CANCELLED':
      return 'The service stopped this query (it may be restarting): it will be asked again.';
    case 'UNAVAILABLE':
      return 'The service is not ready to answer: try again in a moment.';
    case 'TIMEOUT':
      return 'The service took too long to answer: try a shorter period or a narrower query.';
    case 'PERMISSION-DENIED':
      return 'Your account may not do this.';
    case 'BAD-ANSWER':
      return `The service gave an answer the page cannot read (HTTP ${a.status ?? '?'}).`;
  }
  // Any other error: its reason in words when it has one, and its code for the log.
  const reason = a.reason || a.message;
  return reason ? `${reason} (${code})` : `The service could not answer (${code}).`;
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
    this.down = new Set(); // followed calls waiting for the service (followState)
    this.session = 0; // counts sign-ins and sign-outs: see sessionChanged
    this.kept = new Map(); // URL -> {etag, result} of read, least recently used first
  }

  // sessionChanged tells the API that the page signed in or out: an answer that comes late to a
  // call made before, with the session that ended or with none, is then no news of the new
  // session's end (signing out and in again raced such answers).
  sessionChanged() {
    this.session++;
    this.kept.clear(); // another user's answers
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

  // read calls fn, a function that changes nothing (declared ReadOnly), with args as a GET, its
  // arguments in the query string; repeated, it sends the ETag of the last answer and a 304
  // returns a copy of that answer. It throws an APIError, as call.
  async read(fn, args = {}) {
    const session = this.session;
    const query = Object.keys(args).sort()
      .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(JSON.stringify(args[k]))}`).join('&');
    const url = `${this.base}/${fn}${query ? `?${query}` : ''}`;
    const kept = this.kept.get(url);
    const headers = {'Accept': 'application/json'};
    if (kept) headers['If-None-Match'] = kept.etag;
    let res;
    try {
      res = await fetch(url, {headers, credentials: 'same-origin', cache: 'no-store'});
    } catch {
      throw this.toError({type: 'error', error: 'NETWORK'}, session);
    }
    this.kept.delete(url); // kept again below, as the most recently used
    if (res.status === 304 && kept) {
      this.kept.set(url, kept);
      return structuredClone(kept.result);
    }
    let msg;
    try {
      msg = await res.json();
    } catch {
      msg = {type: 'error', error: 'BAD-ANSWER', status: res.status};
    }
    if (msg.type !== 'result') throw this.toError(msg, session);
    const etag = res.headers.get('ETag');
    if (etag && session === this.session) {
      this.kept.set(url, {etag, result: structuredClone(msg.result)});
      if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value);
    }
    return msg.result;
  }

  // call calls fn with args and returns its result; it throws an APIError.
  async call(fn, args = {}) {
    const session = this.session;
    const msg = await this.message(fn, args);
    if (msg.type === 'result') return msg.result;
    throw this.toError(msg, session);
  }

  // toError turns an error message into an APIError, reporting a lost session when the call was
  // made in the current one (session is this.session when the call started).
  toError(msg, session = this.session) {
    const err = msg instanceof APIError ? msg : new APIError(msg);
    if (err.code === AUTH_NEEDED && session === this.session) {
      this.sessionChanged(); // once: the other calls of the ended session are old news too
      this.onAuthNeeded(err);
    }
    return err;
  }

  // follow starts a live stream call of fn: onChunk(chunk) receives each chunk, onError(err)
  // an APIError that ended it for good (a mistake in the call: QUERY-SYNTAX, PERMISSION-DENIED,
  // a lost session...), onState(state) "reconnecting" when the answers stopped coming and
  // "live" when they come again. Whatever only interrupts the call (the server shutting down or
  // draining, a node's death, a network cut, a stream the server ends after its hour) starts it
  // again, after a pause that doubles from half a second to RETRY_MAX; a stream silent for
  // SILENCE is taken for dead and started again. It returns a function that stops it.
  follow(fn, args, {onChunk, onError, onState = () => {}}) {
    let stop = null;
    let stopped = false;
    let timer;
    let watchdog;
    let pause = RETRY_MIN;
    let down = false;
    const session = this.session;
    const setDown = (d) => {
      if (down === d) return;
      down = d;
      this.followState(handle, d);
      onState(d ? 'reconnecting' : 'live');
    };
    const handle = {};
    const watch = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => { setDown(true); restart(); }, SILENCE);
    };
    const restart = () => {
      stop?.();
      stop = null;
      clearTimeout(timer);
      clearTimeout(watchdog);
      if (stopped) return;
      timer = setTimeout(start, pause);
      pause = Math.min(pause * 2, RETRY_MAX);
    };
    const start = () => {
      watch();
      stop = this.stream({
        fn, args,
        onChunk: (chunk) => {
          if (stopped) return;
          pause = RETRY_MIN;
          watch();
          setDown(false);
          onChunk(chunk);
        },
        onBreak: () => { if (!stopped) setDown(true); },
        onEnd: () => restart(),
        onError: (e) => {
          if (stopped) return; // stopped by the page, which expects no news of it
          const err = this.toError(e, session);
          if (transient(err)) {
            setDown(true);
            restart();
            return;
          }
          clearTimeout(watchdog);
          this.followState(handle, false);
          onError(err);
        },
      });
    };
    start();
    return () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(watchdog);
      this.followState(handle, false);
      stop?.();
    };
  }

  // followState keeps the set of followed calls waiting for the service, and tells
  // onLiveState "reconnecting" while it has any, "live" when it empties.
  followState(handle, down) {
    const before = this.down.size;
    if (down) this.down.add(handle);
    else this.down.delete(handle);
    if (before && !this.down.size) this.onLiveState('live');
    else if (!before && this.down.size) this.onLiveState('reconnecting');
  }

  // stream runs one stream call sub ({fn, args, onChunk, onEnd, onError}) over the WebSocket or
  // HTTP streaming, and returns a function that cancels it.
  stream(sub) {
    if (this.live === 'http' || (this.live === 'auto' && this.socket?.failed)) {
      return this.followHTTP(sub);
    }
    this.socket ??= new Socket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${this.base}/ws`,
      () => this.live === 'auto');
    let stop = this.socket.stream(sub, () => {
      // The WebSocket could not be opened at all: continue over HTTP streaming.
      stop = this.followHTTP(sub);
    });
    return () => stop();
  }

  // followHTTP runs sub over HTTP streaming; follow starts it again when it breaks.
  followHTTP(sub) {
    const ctrl = new AbortController();
    const run = async () => {
      try {
        await this.streamHTTP(sub.fn, sub.args, ctrl.signal, (msg) => {
          if (msg.type === 'chunk') sub.onChunk(msg.chunk);
          else if (msg.type === 'error') throw new APIError(msg);
        });
        if (!ctrl.signal.aborted) sub.onEnd();
      } catch (e) {
        if (!ctrl.signal.aborted) sub.onError(e instanceof APIError ? e : new APIError({error: 'NETWORK'}));
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
      if (!msg || typeof msg.error !== 'string') throw new APIError({error: 'BAD-ANSWER', status: res.status});
      throw new APIError(msg);
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      let part;
      try {
        part = await reader.read();
      } catch {
        if (signal.aborted) return;
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
    this.down.clear();
  }
}

// Socket is one WebSocket connection multiplexing stream calls. When it breaks it tells each
// call (onBreak), dials again after a pause that doubles from half a second to RETRY_MAX (at
// once when the browser says it is back online) and starts its calls again. A connection
// silent for SILENCE while it carries calls (a followed query answers every few seconds) is
// taken for dead, as after a cut no close ever arrives.
class Socket {
  constructor(url, mayFallBack) {
    this.url = url;
    this.mayFallBack = mayFallBack;
    this.subs = new Map(); // call id -> {sub, onFail}
    this.next = 1;
    this.ws = null;
    this.opened = false; // a connection was open once
    this.failed = false; // it never opened: the page uses HTTP streaming
    this.closed = false;
    this.retry = RETRY_MIN;
    this.timer = null; // the next dial
    this.watchdog = null;
    this.online = () => this.dialNow();
    addEventListener('online', this.online);
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
    if (this.ws || this.closed || this.timer) return;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    this.watch();
    ws.onopen = () => {
      this.opened = true;
      this.retry = RETRY_MIN;
      for (const [id, {sub}] of this.subs) this.send({id, stream: sub.fn, args: sub.args});
    };
    ws.onmessage = (ev) => {
      this.watch();
      this.receive(ev.data);
    };
    ws.onclose = () => this.broken(ws);
  }

  // broken forgets the connection ws and dials again after a pause.
  broken(ws) {
    if (this.ws !== ws) return;
    ws.onopen = ws.onmessage = ws.onclose = null;
    this.ws = null;
    clearTimeout(this.watchdog);
    if (ws.readyState !== WebSocket.CLOSED) ws.close();
    if (this.closed) return;
    if (!this.opened && this.mayFallBack()) {
      this.failed = true;
      const subs = [...this.subs.values()];
      this.subs.clear();
      for (const {onFail} of subs) onFail();
      return;
    }
    for (const {sub} of this.subs.values()) sub.onBreak?.();
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.subs.size) this.connect();
    }, this.retry);
    this.retry = Math.min(this.retry * 2, RETRY_MAX);
  }

  // dialNow dials at once a connection waiting for its next try.
  dialNow() {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.retry = RETRY_MIN;
    if (this.subs.size) this.connect();
  }

  watch() {
    clearTimeout(this.watchdog);
    const ws = this.ws;
    this.watchdog = setTimeout(() => {
      if (this.subs.size) this.broken(ws);
      else if (this.ws === ws) this.watch();
    }, SILENCE);
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
    clearTimeout(this.timer);
    clearTimeout(this.watchdog);
    removeEventListener('online', this.online);
    this.ws?.close(1000);
    this.ws = null;
  }
}
