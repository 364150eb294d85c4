import "@xyflow/react/dist/base.css";
import "./styles.css";
import { ReactFlowProvider } from "@xyflow/react";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createApi } from "./api/endpoints";
import { openFeed } from "./api/feed";
import { HttpClient } from "./api/http";
import { App } from "./shell/App";
import type { Services } from "./shell/context";
import { ServicesContext } from "./shell/context";
import { ContractCache } from "./state/contracts";
import { Workspace } from "./state/workspace";

const http = new HttpClient();
const api = createApi(http);
const services: Services = {
  api,
  workspace: new Workspace({ api, openFeed: (after, listener) => openFeed(http, after, listener) }),
  contracts: new ContractCache(api),
};
void services.workspace.start();

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    <ServicesContext.Provider value={services}>
      <ReactFlowProvider>
        <App />
      </ReactFlowProvider>
    </ServicesContext.Provider>
  </StrictMode>,
);
