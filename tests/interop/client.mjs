// Interoperability check: the official TypeScript MCP SDK, a client nobody here wrote,
// against corpus-mcp, over Streamable HTTP or over stdio (the SDK starts the server).
// Usage: node client.mjs URL QUERY
//        node client.mjs --stdio QUERY COMMAND [ARGS...]   (the server gets our environment)
// Prints one JSON object on stdout for tests/test_server_interop.py to check; the SDK
// itself validates each structured result against the tool's advertised outputSchema.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [target, query, ...command] = process.argv.slice(2);
const overStdio = target === "--stdio";
if (!target || !query || (overStdio && command.length === 0)) {
  console.error("usage: node client.mjs URL QUERY | node client.mjs --stdio QUERY COMMAND [ARGS...]");
  process.exit(2);
}

const client = new Client({ name: "corpus-mcp-interop", version: "1.0.0" });
const transport = overStdio
  ? new StdioClientTransport({
      command: command[0],
      args: command.slice(1),
      env: { ...process.env },
      stderr: "inherit",
    })
  : new StreamableHTTPClientTransport(new URL(target));
await client.connect(transport);

const listed = await client.listTools();
const search = await client.callTool({ name: "search", arguments: { query, limit: 3 } });
// Prefer a result that hints at sections, to exercise the discover -> select workflow.
const results = search.structuredContent?.results ?? [];
const hit = results.find((result) => result.relevant_sections.length > 0) ?? results[0];
const hinted = hit ? hit.relevant_sections.slice(0, 1).map((section) => section.id) : [];
const fetched = hit
  ? await client.callTool({ name: "fetch", arguments: { ref: hit.ref, sections: hinted } })
  : null;
const failed = await client.callTool({ name: "search", arguments: { query: "   " } });

console.log(
  JSON.stringify({
    transport: overStdio ? "stdio" : "http",
    protocolVersion: transport.protocolVersion ?? null,
    serverCapabilities: client.getServerCapabilities(),
    tools: listed.tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      annotations: tool.annotations,
      hasOutputSchema: Boolean(tool.outputSchema),
    })),
    search: { isError: search.isError ?? false, structuredContent: search.structuredContent },
    hinted,
    fetchedRef: hit?.ref ?? null,
    fetch: fetched && { isError: fetched.isError ?? false, structuredContent: fetched.structuredContent },
    invalid: { isError: failed.isError ?? false, text: failed.content?.[0]?.text ?? null },
  }),
);
await client.close();
