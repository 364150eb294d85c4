import "@xyflow/react/dist/base.css";
import "./styles.css";
import { ReactFlowProvider } from "@xyflow/react";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createAgentApi, createApi, createControlsApi } from "./api/endpoints";
import { openFeed } from "./api/feed";
import { HttpClient } from "./api/http";
import { createDataApi } from "./data/dataApi";
import { createResourceApi } from "./api/resourceApi";
import { createSourceApi } from "./api/sourceEndpoints";
import { App } from "./shell/App";
import type { Services } from "./shell/context";
import { ServicesContext } from "./shell/context";
import { saveDownload } from "./shell/download";
import { SourceApiContext } from "./source/context";
import { AgentStore } from "./state/agent";
import { ContractCache } from "./state/contracts";
import { Controls } from "./state/controls";
import { ResourceStore } from "./state/resources";
import { Workspace } from "./state/workspace";

const http = new HttpClient();
const api = createApi(http);
const sourceApi = createSourceApi(http);
const services: Services = {
  api,
  workspace: new Workspace({ api, openFeed: (after, listener) => openFeed(http, after, listener), promote: (nodeId, invocations, base) => sourceApi.promote(nodeId, invocations, base) }),
  contracts: new ContractCache(api),
  controls: new Controls({ api: createControlsApi(http), save: saveDownload }),
  agent: new AgentStore({ api: createAgentApi(http), activity: (after) => api.activity(after) }),
  data: createDataApi(http),
  resources: new ResourceStore(createResourceApi(http)),
};
services.workspace.tap(services.controls.feedTap);
services.workspace.tap(services.agent.feedTap);
services.workspace.tap(services.resources.feedTap);
void services.workspace.start();
void services.agent.start();

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    <ServicesContext.Provider value={services}>
      <SourceApiContext.Provider value={sourceApi}>
        <ReactFlowProvider>
          <App />
        </ReactFlowProvider>
      </SourceApiContext.Provider>
    </ServicesContext.Provider>
  </StrictMode>,
);
