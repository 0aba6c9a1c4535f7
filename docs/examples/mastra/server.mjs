// A Mastra agent served over AG-UI for the elicitation playground: each POST is one run,
// its events streamed back as server-sent events. Run it with `npm ci && npm start`.
// Env: OPENAI_API_KEY; OPENAI_BASE_URL for another OpenAI-compatible server; PORT (4111).
import { createServer } from "node:http";
import { EventEncoder } from "@ag-ui/encoder";
import { MastraAgent } from "@ag-ui/mastra";
import { Mastra } from "@mastra/core";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { LibSQLStore } from "@mastra/libsql";
import { z } from "zod";

// Asks for input: suspend() with the question; resumed, resumeData is the typed answer.
const bookHotel = createTool({
  id: "book_hotel",
  description: "Book a hotel for a trip.",
  inputSchema: z.object({ trip: z.string() }),
  suspendSchema: z.object({ question: z.string() }),
  resumeSchema: z.object({
    city: z.string().describe("City"),
    nights: z.number().int().min(1).describe("Nights"),
  }),
  execute: async ({ trip }, { agent }) => {
    if (!agent.resumeData) {
      return agent.suspend({ question: `Where to, and for how long? (${trip})` });
    }
    const { city, nights } = agent.resumeData;
    return { booked: `${nights} nights in ${city}` };
  },
});

// Asks for approval (in place of requireApproval, which @ag-ui/mastra 1.1.2 does not carry):
// suspend() with no resumeSchema; resumed, resumeData is { approved: true | false }.
const cancelBooking = createTool({
  id: "cancel_booking",
  description: "Cancel a hotel booking.",
  inputSchema: z.object({ booking: z.string() }),
  execute: async ({ booking }, { agent }) => {
    if (!agent.resumeData) return agent.suspend({ question: `Cancel booking ${booking}?` });
    return agent.resumeData.approved ? { cancelled: booking } : { kept: booking };
  },
});

const travel = new Agent({
  id: "travel",
  name: "Travel agent",
  instructions: "Book hotels with book_hotel, cancel them with cancel_booking.",
  model: {
    id: "openai/gpt-5-mini",
    url: process.env.OPENAI_BASE_URL, // unset: OpenAI's own
    apiKey: process.env.OPENAI_API_KEY, // with a url, Mastra sends only a key given here
    api: "chat",
  },
  tools: { book_hotel: bookHotel, cancel_booking: cancelBooking },
});

// Durable: a suspended tool's run is kept in mastra.db, so it resumes after a restart.
const mastra = new Mastra({
  agents: { travel },
  storage: new LibSQLStore({ id: "travel", url: "file:mastra.db" }),
});

createServer(async (request, response) => {
  let body = "";
  for await (const chunk of request) body += chunk;
  let input;
  try {
    input = JSON.parse(body);
  } catch {
    return response.writeHead(400).end("A run is a POSTed RunAgentInput (JSON).");
  }
  const encoder = new EventEncoder();
  response.writeHead(200, { "Content-Type": encoder.getContentType() });
  MastraAgent.getLocalAgent({ mastra, agentId: "travel" }).run(input).subscribe({
    next: (event) => response.write(encoder.encode(event)),
    error: (error) => response.end(encoder.encode({ type: "RUN_ERROR", message: String(error) })),
    complete: () => response.end(),
  });
}).listen(Number(process.env.PORT ?? 4111), "127.0.0.1");
