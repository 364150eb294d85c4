/**
 * "Replace with operator…" for one process call of a pinned pipeline: the
 * palette's catalog search, narrowed to the operators whose ports fit the
 * call by type, then the port mapping, offered by type and editable, sent
 * as one ordinary `replace_invocation` transaction (so undo and redo work
 * like any edit). The runtime checks the mapping again; its refusal names
 * the port and is shown here.
 */
import { useId, useState } from "react";
import { ApiError } from "../api/errors";
import type { Invocation, InvocationPort } from "../api/sourceSchemas";
import type { CatalogMatch } from "../api/types";
import { useCatalogSearch } from "../palette/useCatalogSearch";
import { FailureBlock } from "../shell/FailureBlock";
import { useServices } from "../shell/context";
import type { Failure } from "../state/controls";
import { toFailure } from "../state/controls";
import type { OperatorPort, PortMapping } from "./replace";
import { counterparts, fittingOperators, inputFits, mappingByType, mappingProblem, nfCoreModule, outputFits, refusalDetail } from "./replace";

export interface ReplaceInvocationProps {
  readonly nodeId: string;
  readonly invocation: Invocation;
  readonly onDone: () => void;
}

export function ReplaceInvocation({ nodeId, invocation, onDone }: ReplaceInvocationProps) {
  const [query, setQuery] = useState(() => invocation.process.toLowerCase().replaceAll("_", " "));
  const [chosen, setChosen] = useState<CatalogMatch | undefined>();
  const search = useCatalogSearch(query);
  const inputId = useId();
  const page = search.status === "done" ? search.page : search.status === "loading" ? search.previous : undefined;
  const standing = page ? counterparts(invocation, page.matches) : [];
  const fitting = [
    ...standing,
    ...(page ? fittingOperators(invocation, page.matches) : []).filter((m) => !standing.includes(m)),
  ];
  const unfit = (page?.matches.length ?? 0) - fitting.length;

  if (chosen) {
    return <MapPorts nodeId={nodeId} invocation={invocation} operator={chosen} declared={standing.includes(chosen)} onBack={() => { setChosen(undefined); }} onDone={onDone} />;
  }
  return (
    <section className="replace" aria-label={`Replace ${invocation.call} with an operator`}>
      <h4 className="replace__title">Replace {invocation.call} with an operator</h4>
      <label className="field__label" htmlFor={inputId}>
        Search the catalog
      </label>
      <input
        id={inputId}
        type="search"
        className="input"
        value={query}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => { setQuery(e.target.value); }}
      />
      <p className="muted replace__status" aria-live="polite">
        {search.status === "failed" && <span className="text-danger">{search.message}</span>}
        {search.status === "done" &&
          (fitting.length === 0
            ? `No operator of “${search.query}” fits ${invocation.call}'s ports.`
            : `${String(fitting.length)} fitting operator${fitting.length === 1 ? "" : "s"}`)}
        {unfit > 0 && ` · ${String(unfit)} whose ports do not fit hidden`}
      </p>
      <ul className={`replace__results${search.status === "loading" ? " is-loading" : ""}`} aria-label="Fitting operators">
        {fitting.map((match) => (
          <li key={match.id}>
            <button type="button" className="palette-item" data-operator={match.id} onClick={() => { setChosen(match); }}>
              <span className="palette-item__top">
                <span className="palette-item__name">{match.title}</span>
              </span>
              <span className="mono muted">{match.id}</span>
              {standing.includes(match) && <span className="palette-item__purpose">Stands for nf-core {match.nf_core_module}</span>}
              <span className="palette-item__purpose mono">
                {match.inputs.map((p) => p.type).join(", ") || "no inputs"} → {match.outputs.map((p) => p.type).join(", ")}
              </span>
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="button button--small" onClick={onDone}>
        Cancel
      </button>
    </section>
  );
}

interface MapPortsProps {
  readonly nodeId: string;
  readonly invocation: Invocation;
  readonly operator: CatalogMatch;
  /** The operator stands for the call's own nf-core module and meets it as its contract declares. */
  readonly declared: boolean;
  readonly onBack: () => void;
  readonly onDone: () => void;
}

/** The port mapping, one row per port of the call, prefilled by type. */
function MapPorts({ nodeId, invocation, operator, declared, onBack, onDone }: MapPortsProps) {
  const { workspace } = useServices();
  const [mapping, setMapping] = useState<PortMapping>(() => mappingByType(invocation, operator));
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<{ failure: Failure; where: string | undefined } | undefined>();
  const problem = declared ? undefined : mappingProblem(mapping, operator);

  const set = (direction: "inputs" | "outputs", port: string, operatorPort: string) => {
    const others = Object.entries(mapping[direction]).filter(([name]) => name !== port);
    const next = Object.fromEntries(operatorPort === "" ? others : [...others, [port, operatorPort]]);
    setMapping({ ...mapping, [direction]: next });
    setFailure(undefined);
  };

  const replace = async () => {
    setSaving(true);
    const result = await workspace.edit(
      `Replace ${invocation.call} with ${operator.id}`,
      [
        declared
          ? { op: "replace_invocation", node_id: nodeId, invocation: invocation.id, operator_id: operator.id }
          : { op: "replace_invocation", node_id: nodeId, invocation: invocation.id, operator_id: operator.id, inputs: { ...mapping.inputs }, outputs: { ...mapping.outputs } },
      ],
      { reportErrors: false },
    );
    setSaving(false);
    if (result.ok) {
      onDone();
      return;
    }
    const error = result.error;
    setFailure({ failure: toFailure(error), where: error instanceof ApiError ? refusalDetail(error.code, error.details) : undefined });
  };

  const rows = (direction: "inputs" | "outputs", ports: readonly InvocationPort[], candidates: readonly OperatorPort[]) =>
    ports.map((port) => {
      const fits = candidates.filter((c) => (direction === "inputs" ? inputFits : outputFits)(port.type, c));
      return (
        <tr key={`${direction}:${port.name}`} data-port={port.name}>
          <th scope="row" className="mono">
            {port.name}
          </th>
          <td className="mono">{port.type ?? <span className="muted">type unknown</span>}</td>
          <td>
            <select
              className="input"
              aria-label={`${direction === "inputs" ? "Input" : "Output"} ${port.name} of ${invocation.call}`}
              value={mapping[direction][port.name] ?? ""}
              disabled={port.type === null}
              onChange={(e) => { set(direction, port.name, e.target.value); }}
            >
              <option value="">not mapped</option>
              {fits.map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name} ({c.type})
                </option>
              ))}
            </select>
          </td>
        </tr>
      );
    });

  return (
    <section className="replace" aria-label={`Map the ports of ${invocation.call} to ${operator.id}`}>
      <h4 className="replace__title">
        {invocation.call} → <span className="mono">{operator.id}</span>
      </h4>
      {declared ? (
        <p className="muted">
          {operator.id} stands for the nf-core module <span className="mono">{nfCoreModule(invocation.file)}</span>: its contract says which of the
          module's channels meet which of its ports, and Somite checks them against this call.
        </p>
      ) : (
        <table className="replace__mapping">
          <thead>
            <tr>
              <th scope="col">Port of the call</th>
              <th scope="col">Type</th>
              <th scope="col">Operator port</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th colSpan={3} scope="rowgroup" className="replace__group">
                Inputs
              </th>
            </tr>
            {rows("inputs", invocation.inputs, operator.inputs)}
            <tr>
              <th colSpan={3} scope="rowgroup" className="replace__group">
                Outputs
              </th>
            </tr>
            {rows("outputs", invocation.outputs, operator.outputs)}
          </tbody>
        </table>
      )}
      {problem && <p className="field__error">{problem}</p>}
      {failure && (
        <>
          <FailureBlock failure={failure.failure} />
          {failure.where && <p className="field__error mono">{failure.where}</p>}
        </>
      )}
      <p className="replace__actions">
        <button type="button" className="button button--primary button--small" disabled={problem !== undefined || saving} onClick={() => void replace()}>
          Replace {invocation.call}
        </button>
        <button type="button" className="button button--small" onClick={onBack}>
          Back
        </button>
      </p>
    </section>
  );
}
