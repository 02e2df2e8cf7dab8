// A program that uses the client openapi-typescript generates from the data service's OpenAPI
// document (api.d.ts, written by the test next to this file) through openapi-fetch: it logs in,
// makes an API key, creates a dashboard, ingests records and queries them, once for one result
// and once as an NDJSON stream. Everything it reads is typed by the generated paths; tsc checks
// it before node runs it. Environment: DATASERVICE_URL (the API root of one version, such as
// https://127.0.0.1:8443/api/1.1) and SVC_ADMIN_PASSWORD. It prints "ok" or throws.
import createClient from "openapi-fetch";
import type { paths } from "./api.js";

declare const process: { env: Record<string, string | undefined> };

type StreamMessage = paths["/stream/query"]["post"]["responses"][200]["content"]["application/x-ndjson"];

function check(ok: boolean, what: string, detail?: unknown): asserts ok {
	if (!ok) throw new Error(`${what}: ${JSON.stringify(detail)}`);
}

const baseUrl = process.env.DATASERVICE_URL ?? "";
const password = process.env.SVC_ADMIN_PASSWORD ?? "";
const anon = createClient<paths>({ baseUrl });

const bad = await anon.POST("/login", { body: { user: "admin", password: password + "x" } });
check(bad.error?.error === "INVALID-CREDENTIALS", "login with a wrong password", bad.error);

const login = await anon.POST("/login", { body: { user: "admin", password } });
check(login.data !== undefined, "login", login.error);
const session: string = login.data.result;
check(session.startsWith("session:"), "session ID", session);

const made = await anon.POST("/create-api-key", {
	body: { name: "typescript" },
	headers: { Cookie: `Svc-Session=${session}`, "Sec-Fetch-Site": "same-origin" }, // a program acting for its user
});
check(made.data !== undefined, "create-api-key", made.error);
const api = createClient<paths>({ baseUrl, headers: { "Svc-Authorization": made.data.result } });

const created = await api.POST("/create-dashboard", { body: { title: "From TypeScript", description: "a generated client" } });
check(created.data !== undefined, "create-dashboard", created.error);
const dashboard = created.data.result;
check(dashboard.title === "From TypeScript" && dashboard.widgets.length === 0, "the dashboard created", dashboard);

const got = await api.GET("/get-dashboard", { params: { query: { id: dashboard.id } } });
check(got.data?.result.description === "a generated client", "get-dashboard", got.error ?? got.data);

const now = Math.floor(Date.now() / 1000);
const side = (ip: string, port: number, bytes: number) => ({ ip, port, bytes, packets: 1 });
const ingested = await api.POST("/ingest", {
	body: {
		records: [
			{ time: now - 5, protocol: "tcp", client: side("10.0.0.1", 50000, 100), server: side("10.0.0.2", 443, 900) },
			{ time: now - 5, protocol: "udp", client: side("10.0.0.1", 50001, 40), server: side("10.0.0.3", 53, 60) },
		],
	},
});
check(ingested.data?.result.ingested === 2, "ingest", ingested.error ?? ingested.data);

const expr = `traffic BY protocol SINCE ${now - 60} UNTIL ${now + 60}`;
const answered = await api.POST("/query", { body: { expr } });
check(answered.data !== undefined, "query", answered.error);
const rows = answered.data.result[0].data;
const byProtocol = new Map(rows.map(([keys, values]) => [String(keys[0]), values[0]]));
check(byProtocol.get("tcp") === 1000 && byProtocol.get("udp") === 100, "query rows", rows);

const syntax = await api.POST("/query", { body: { expr: "traffic BY nothing" } });
check(syntax.error?.error === "QUERY-SYNTAX", "a bad expression", syntax.error);

const streamed = await api.POST("/stream/query", { body: { expr }, parseAs: "text" });
check(typeof streamed.data === "string", "stream/query", streamed.error);
const messages = streamed.data.trim().split("\n").map((line) => JSON.parse(line) as StreamMessage);
const last = messages[messages.length - 1];
const chunks = messages.flatMap((m) => (m.type === "chunk" ? [m.chunk] : []));
check(last.type === "end" && chunks.length > 0, "stream messages", messages);
check(chunks[chunks.length - 1].progress === 1, "the last chunk's progress", chunks);
check(JSON.stringify(chunks[chunks.length - 1].result[0].data) === JSON.stringify(rows), "the streamed result", chunks);

console.log("ok");
