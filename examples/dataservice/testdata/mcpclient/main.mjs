// Lists the tools of the data service's MCP endpoint and calls query with the official MCP
// TypeScript SDK, as an agent configured with an API key does; prints "ok" or throws.
// DATASERVICE_URL is the API's base (https://host:port/api), DATASERVICE_KEY an API key.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = new URL(process.env.DATASERVICE_URL + "/mcp");
const transport = new StreamableHTTPClientTransport(url, {
  requestInit: { headers: { Authorization: "Bearer " + process.env.DATASERVICE_KEY } },
});
const client = new Client({ name: "ts-agent", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
for (const want of ["query", "list-fields", "create-dashboard"]) {
  if (!names.includes(want)) throw new Error(`no tool ${want} in ${names}`);
}
const query = tools.find((t) => t.name === "query");
if (!query.annotations?.readOnlyHint || !query.description.includes("pvql://grammar")) {
  throw new Error(`query: ${JSON.stringify(query)}`);
}

// The SDK checks structuredContent against the tool's outputSchema.
const res = await client.callTool({ name: "query", arguments: { expr: "traffic; records BY protocol" } });
if (res.isError || !Array.isArray(res.structuredContent?.result) || res.structuredContent.result.length !== 2) {
  throw new Error(`query: ${JSON.stringify(res)}`);
}
const bad = await client.callTool({ name: "query", arguments: { expr: "traffic BY" } });
const err = JSON.parse(bad.content[0].text);
if (!bad.isError || err.error !== "QUERY-SYNTAX" || typeof err.position !== "number") {
  throw new Error(`bad query: ${JSON.stringify(bad)}`);
}
const dash = await client.callTool({ name: "create-dashboard", arguments: { title: "From an agent" } });
if (dash.isError || dash.structuredContent?.title !== "From an agent") {
  throw new Error(`create-dashboard: ${JSON.stringify(dash)}`);
}
const grammar = await client.readResource({ uri: "pvql://grammar" });
if (!grammar.contents[0].text.includes("statement := values")) throw new Error("grammar");
await client.close();
console.log("ok");
