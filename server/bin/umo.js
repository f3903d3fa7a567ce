#!/usr/bin/env node
// `npx umo …`: the operator's command line, the server (`umo serve`) and the stdio MCP server,
// from the built sources. This file is plain JavaScript and imports nothing of UMO before the
// Node is checked: on one older than 22.19 it runs itself again on a newer one (newer-node.js).
import { newEnough, runOnNewerNode } from "./newer-node.js"

if (newEnough()) await import("../dist/cli.js")
else runOnNewerNode()
