/**
 * The workspace layout: top bar with the edit and workflow controls, catalog
 * palette, canvas (with the run panel over it), inspector, the Agent panel
 * when open (docked beside the inspector, resizable), and the readiness
 * status bar.
 */
import { Suspense, lazy, useCallback, useEffect, useMemo, useState } from "react";
import { AgentDock, useDockWidth } from "../agent/AgentDock";
import type { NodeRunState, ReadinessItem, WorkflowDocument } from "../api/types";
import { Canvas } from "../canvas/Canvas";
import { ControlsBar } from "../controls/ControlsBar";
import { deleteEdits } from "../canvas/edits";
import type { OperatorLabel } from "../canvas/flowModel";
import { operatorLabels } from "../canvas/flowModel";
import type { Selection } from "../canvas/selection";
import { EMPTY_SELECTION, selectOnly } from "../canvas/selection";
import { useCanvasActions } from "../canvas/useCanvasActions";
import type { FieldFocus } from "../inspector/Inspector";
import { Inspector } from "../inspector/Inspector";
import { FindData } from "../data/FindData";
import { Palette } from "../palette/Palette";
import { OpenOutlineContext } from "../source/context";
import { gateControls } from "../readiness/gating";
import { RequirementsPanel } from "../readiness/RequirementsPanel";
import { StatusBar } from "../readiness/StatusBar";
import { useResolve } from "../readiness/useResolve";
import { resourceProfileOf } from "../resources/profile";
import { ResourceBinder, useBindResource } from "../resources/useBindResource";
import { isConnected } from "../state/agent";
import { evidenceVerdict, runIsActive } from "../state/controls";
import { useAgentState, useContractEntries, useControlsState, useServices, useWorkspaceState } from "./context";
import { Notices } from "./Notices";
import { TopBar } from "./TopBar";
import { useShortcuts } from "./useShortcuts";
import { useTheme } from "./useTheme";

// Not needed to draw the canvas: loaded the first time they are opened,
// which keeps them out of the entry chunk's size budget.
const AgentPanel = lazy(() => import("../agent/AgentPanel").then((m) => ({ default: m.AgentPanel })));
const RunPanel = lazy(() => import("../controls/RunPanel").then((m) => ({ default: m.RunPanel })));
const ProjectToolsPanel = lazy(() => import("../tools/ProjectToolsPanel").then((m) => ({ default: m.ProjectToolsPanel })));
const ResourceResolutions = lazy(() => import("../resources/ResourceResolutions").then((m) => ({ default: m.ResourceResolutions })));
const InstalledResources = lazy(() => import("../resources/InstalledResources").then((m) => ({ default: m.InstalledResources })));
const StartFromPipeline = lazy(() => import("../source/StartFromPipeline").then((m) => ({ default: m.StartFromPipeline })));
const OutlineView = lazy(() => import("../source/OutlineView").then((m) => ({ default: m.OutlineView })));
const VariantBanner = lazy(() => import("../source/VariantBanner").then((m) => ({ default: m.VariantBanner })));

const NO_LABELS: ReadonlyMap<string, OperatorLabel> = new Map();

export function App() {
  const { workspace, contracts, controls, data } = useServices();
  const state = useWorkspaceState();
  const controlsState = useControlsState();
  const agentState = useAgentState();
  const [agentOpen, setAgentOpen] = useState(false);
  const agentDock = useDockWidth();
  const [runPanelOpen, setRunPanelOpen] = useState(false);
  const [toolsOpen, setToolsOpen] = useState(false);
  const contractEntries = useContractEntries();
  const [theme, toggleTheme] = useTheme();
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const [focus, setFocus] = useState<FieldFocus | undefined>();
  const [panelOpen, setPanelOpen] = useState(false);
  const [findDataOpen, setFindDataOpen] = useState(false);
  const [expandedItems, setExpandedItems] = useState<ReadonlySet<string>>(new Set());
  const [outlineNode, setOutlineNode] = useState<string | undefined>();

  const document = state.snapshot?.document;
  const graphRevision = state.snapshot?.graphRevision;
  // An outline whose source node went (removed, or promoted into a native
  // variant) is closed, so undoing that does not reopen it unasked.
  const outlineOpen = outlineNode !== undefined && document?.nodes.some((n) => n.id === outlineNode && n.source) === true;
  if (outlineNode !== undefined && document && !outlineOpen) setOutlineNode(undefined);
  const actions = useCanvasActions(document, setSelection);

  // The evidence of the graph on screen, looked up again whenever it changes.
  useEffect(() => {
    if (graphRevision) void controls.refreshEvidence(graphRevision);
  }, [controls, graphRevision]);

  const runStatus = controlsState.run?.status;
  const runStates = useMemo(
    () =>
      runStatus && runStatus.graph_revision === graphRevision
        ? new Map<string, NodeRunState>(Object.entries(runStatus.states))
        : undefined,
    [runStatus, graphRevision],
  );
  const gates = useMemo(
    () =>
      gateControls({
        readiness: state.readiness,
        graphRevision,
        recoveryRequired: state.recoveryRequired,
        busy: { compile: controlsState.compile.status === "working", export: controlsState.export.status === "working" },
        runActive: runIsActive(controlsState.run),
      }),
    [state.readiness, graphRevision, state.recoveryRequired, controlsState.compile.status, controlsState.export.status, controlsState.run],
  );
  const verdict = useMemo(() => evidenceVerdict(controlsState.evidence, graphRevision), [controlsState.evidence, graphRevision]);
  const act = useCallback(
    (work: () => Promise<void>) => {
      setRunPanelOpen(true);
      void work();
    },
    [],
  );

  useShortcuts({ undo: () => void workspace.undo(), redo: () => void workspace.redo() });

  // Every operator on the canvas needs its contract for its title.
  const operatorIds = useMemo(() => [...new Set(document?.nodes.map((n) => n.operator_id))].sort().join(" "), [document]);
  useEffect(() => {
    if (state.catalogRevision && operatorIds) contracts.request(operatorIds.split(" "), state.catalogRevision);
  }, [contracts, operatorIds, state.catalogRevision]);

  // Kept while no label changes (see operatorLabels), derived during render.
  const [labels, setLabels] = useState<ReadonlyMap<string, OperatorLabel>>(NO_LABELS);
  const nextLabels = operatorLabels(contractEntries, labels);
  if (nextLabels !== labels) setLabels(nextLabels);

  const visibleSelection = useMemo(() => pruneSelection(selection, document), [selection, document]);

  const focusField = useCallback((nodeId: string, field: string) => {
    setFocus({ nodeId, field, request: Date.now() });
  }, []);
  const toggleDetails = useCallback((itemId: string) => {
    setExpandedItems((current) => {
      const next = new Set(current);
      if (!next.delete(itemId)) next.add(itemId);
      return next;
    });
  }, []);
  const showDetails = useCallback((itemId: string) => {
    setPanelOpen(true);
    setExpandedItems((current) => new Set(current).add(itemId));
  }, []);
  const resolve = useResolve({
    document,
    catalogRevision: state.catalogRevision,
    actions,
    select: setSelection,
    focusField,
    showDetails,
  });
  const bindResource = useBindResource({ document, catalogRevision: state.catalogRevision, actions });
  const resourceOptions = useCallback(
    (item: ReadinessItem) => {
      const profile = resourceProfileOf(item, contractEntries);
      return profile ? (
        <Suspense fallback={null}>
          <ResourceResolutions item={item} profile={profile} onBind={bindResource} />
        </Suspense>
      ) : undefined;
    },
    [bindResource, contractEntries],
  );
  const revealNode = useCallback(
    (nodeId: string) => {
      setSelection(selectOnly(nodeId));
      actions.reveal(nodeId);
    },
    [actions],
  );
  const deleteSelection = useCallback(() => {
    if (!document) return;
    void (async () => {
      for (const edit of deleteEdits(document, [...visibleSelection.nodes], [...visibleSelection.edges])) {
        if (!(await workspace.edit(edit.summary, edit.operations)).ok) return;
      }
      setSelection(EMPTY_SELECTION);
    })();
  }, [document, visibleSelection, workspace]);

  if (state.phase === "loading") {
    return <div className="splash" role="status">Opening the workspace…</div>;
  }
  if (state.phase === "failed" || !state.snapshot || !document) {
    return (
      <div className="splash splash--failed" role="alert">
        <h1>Somite could not open the workflow</h1>
        <p>{state.failure?.title}</p>
        {state.failure?.detail && <p className="muted">{state.failure.detail}</p>}
        <button type="button" className="button button--primary" onClick={() => void workspace.retry()}>
          Try again
        </button>
      </div>
    );
  }

  const readinessCurrent = state.readiness?.graph_revision === state.snapshot.graphRevision;
  const session = agentState.session;
  const agentStatus = isConnected(session) && session ? (session.state === "prompting" ? "working" : session.state === "ready" ? "on" : session.state.replace("_", " ")) : undefined;
  const showRunPanel =
    runPanelOpen && (controlsState.run !== undefined || controlsState.compile.status !== "idle" || controlsState.export.status !== "idle" || controlsState.evidence !== undefined);
  return (
    <OpenOutlineContext.Provider value={setOutlineNode}>
    <div className="app" data-pending={state.pendingEdits > 0 ? "true" : undefined}>
      <TopBar
        state={state}
        theme={theme}
        onToggleTheme={toggleTheme}
        onAddNote={() => void actions.addNote()}
        agentOpen={agentOpen}
        agentStatus={agentStatus}
        onToggleAgent={() => { setAgentOpen((open) => !open); }}
        controls={
          <>
            <ControlsBar
              gates={gates}
              verdict={verdict}
              onCompile={() => { act(() => controls.compile()); }}
              onRun={() => { act(() => controls.start("run")); }}
              onValidate={() => { act(() => controls.start("validation")); }}
              onExport={() => { act(() => controls.exportZip()); }}
              onShowPanel={() => { setRunPanelOpen((open) => !open); }}
            />
            <button type="button" className="button button--ghost" aria-expanded={toolsOpen} aria-controls="project-tools" onClick={() => { setToolsOpen((open) => !open); }}>
              Project tools
            </button>
          </>
        }
      />
      {/* One grid row for whichever banners there are. */}
      <div className="app__banners">
      {state.recoveryRequired && (
        <p className="banner banner--danger" role="alert">
          Graph edits are blocked: {state.recoveryRequired}.{" "}
          <button type="button" onClick={() => void workspace.rebind()}>
            Rebind the workflow as shown
          </button>{" "}
          (or run <code>somite project rebind</code>) to bind it to its location again.
        </p>
      )}
      {document.variant_origin && (
        <Suspense fallback={null}>
          <VariantBanner origin={document.variant_origin} />
        </Suspense>
      )}
      </div>
      <div className={`workbench${agentOpen ? " workbench--agent" : ""}`} style={agentOpen ? agentDock.style : undefined}>
        <Palette catalogRevision={state.catalogRevision} onAdd={(operator) => void actions.addOperator(operator)} />
        <main className="canvas" aria-label="Canvas">
          <Canvas
            document={document}
            // While a newer assessment is on its way, the previous badges are
            // still the best information there is; the status bar says so.
            readiness={state.readiness}
            runStates={runStates}
            labels={labels}
            selection={visibleSelection}
            onSelectionChange={setSelection}
            actions={actions}
            colorMode={theme}
          />
          {findDataOpen ? (
            <FindData data={data} onClose={() => { setFindDataOpen(false); }} />
          ) : (
            <button
              type="button"
              className="button button--small find-data-toggle"
              onClick={() => { setFindDataOpen(true); }}
            >
              Find data
            </button>
          )}
          {panelOpen && state.readiness && (
            <RequirementsPanel
              readiness={state.readiness}
              expanded={expandedItems}
              onToggleDetails={toggleDetails}
              onResolve={(item, resolution) => void resolve(item, resolution)}
              onRevealNode={revealNode}
              onClose={() => { setPanelOpen(false); }}
              resourceOptions={resourceOptions}
            />
          )}
          {showRunPanel && (
            <Suspense fallback={null}>
            <RunPanel
              state={controlsState}
              verdict={verdict}
              graphRevision={state.snapshot.graphRevision}
              onCancel={() => void controls.cancel()}
              onDismiss={(what) => { controls.dismiss(what); }}
              onClose={() => { setRunPanelOpen(false); }}
              onRevealNode={revealNode}
            />
            </Suspense>
          )}
          {document.nodes.length === 0 && (
            <Suspense fallback={null}>
              <StartFromPipeline />
            </Suspense>
          )}
          {outlineNode && outlineOpen && (
            <Suspense fallback={null}>
              <OutlineView nodeId={outlineNode} onClose={() => { setOutlineNode(undefined); }} />
            </Suspense>
          )}
          {toolsOpen && (
            <Suspense fallback={null}>
              <ProjectToolsPanel
                onClose={() => { setToolsOpen(false); }}
                extraSections={[{ id: "resources", title: "Installed resources", render: () => <InstalledResources /> }]}
                onAccepted={(accepted) => {
                  workspace.catalogChanged(accepted.catalog_revision);
                  workspace.notify("info", "Project operator accepted", "It is in the catalog now: search for it in the palette.");
                }}
              />
            </Suspense>
          )}
          <Notices notices={state.notices} />
          <ResourceBinder bind={bindResource} />
        </main>
        <Inspector
          document={document}
          readiness={state.readiness}
          selection={visibleSelection}
          contracts={contractEntries}
          focus={focus}
          onDeleteSelection={deleteSelection}
        />
        {agentOpen && (
          <AgentDock width={agentDock.width} onResize={agentDock.setWidth}>
            <Suspense fallback={<p className="muted agent__loading">Opening the agent panel…</p>}>
              <AgentPanel onClose={() => { setAgentOpen(false); }} />
            </Suspense>
          </AgentDock>
        )}
      </div>
      <StatusBar
        readiness={state.readiness}
        current={readinessCurrent}
        panelOpen={panelOpen}
        onTogglePanel={() => { setPanelOpen((open) => !open); }}
        onResolve={(item, resolution) => void resolve(item, resolution)}
        onRecheck={() => { workspace.refreshReadiness(); }}
      />
    </div>
    </OpenOutlineContext.Provider>
  );
}

/** The selection without ids the document no longer has (deleted elsewhere). */
function pruneSelection(selection: Selection, document: WorkflowDocument | undefined): Selection {
  if (!document) return EMPTY_SELECTION;
  const ids = new Set([...document.nodes.map((n) => n.id), ...document.notes.map((n) => n.id)]);
  const edgeIds = new Set(document.edges.map((e) => e.id));
  const nodes = [...selection.nodes].filter((id) => ids.has(id));
  const edges = [...selection.edges].filter((id) => edgeIds.has(id));
  if (nodes.length === selection.nodes.size && edges.length === selection.edges.size) return selection;
  return { nodes: new Set(nodes), edges: new Set(edges) };
}
