import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Layer, Logger } from "effect"
import { ServerLive } from "./Server.js"

// Structured JSON logs, one object per line.
Layer.launch(ServerLive.pipe(Layer.provide(Logger.layer([Logger.consoleJson])))).pipe(NodeRuntime.runMain)
