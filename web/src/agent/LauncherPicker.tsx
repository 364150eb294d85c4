/**
 * Choosing an agent: the registry's launchers (installed first) and a custom
 * command. Whatever is chosen, the exact argv that will run is shown before
 * Connect — and nothing runs until Connect is pressed.
 */
import { useId, useMemo, useState } from "react";
import type { ConnectRequest, Launcher, LauncherList } from "../api/types";
import { FailureBlock } from "../shell/FailureBlock";
import type { AgentState } from "../state/agent";
import { parseArgv } from "./argv";

const STATUS_ORDER: Readonly<Record<Launcher["status"]["kind"], number>> = { installed: 0, package: 1, not_installed: 2, rejected: 3 };

export interface LauncherPickerProps {
  readonly launchers: AgentState["launchers"];
  readonly connecting: boolean;
  readonly onConnect: (request: ConnectRequest) => void;
  readonly onReload: () => void;
}

type Choice = { readonly type: "launcher"; readonly id: string } | { readonly type: "custom" };

export function LauncherPicker({ launchers, connecting, onConnect, onReload }: LauncherPickerProps) {
  const [choice, setChoice] = useState<Choice | undefined>();
  const [custom, setCustom] = useState("");
  const customId = useId();
  const list = launchers.status === "loaded" ? sortLaunchers(launchers.list) : [];
  const chosen = choice?.type === "launcher" ? list.find((l) => l.id === choice.id) : undefined;
  const parsed = useMemo(() => parseArgv(custom), [custom]);

  let preview: readonly string[] | undefined;
  let request: ConnectRequest | undefined;
  if (chosen && (chosen.status.kind === "installed" || chosen.status.kind === "package")) {
    preview = [chosen.status.command.program, ...chosen.status.command.args];
    request = { launcher: chosen.id };
  } else if (choice?.type === "custom" && parsed.ok) {
    preview = parsed.argv;
    request = { command: parsed.argv };
  }
  const env = chosen && (chosen.status.kind === "installed" || chosen.status.kind === "package") ? Object.keys(chosen.status.command.env) : [];

  return (
    <div className="launchers">
      <h3 className="agent__heading">Choose an agent</h3>
      {launchers.status === "loading" && <p className="muted">Reading the ACP registry and PATH…</p>}
      {launchers.status === "failed" && (
        <>
          <FailureBlock failure={launchers.error} />
          <button type="button" className="button button--small" onClick={onReload}>
            Try again
          </button>
        </>
      )}
      {launchers.status === "loaded" && (
        <p className="muted launchers__origin">{registryLabel(launchers.list.registry)}</p>
      )}
      <ul className="launcher-list" aria-label="Agents">
        {list.map((launcher) => (
          <li key={launcher.id}>
            <button
              type="button"
              className={`launcher${choice?.type === "launcher" && choice.id === launcher.id ? " launcher--chosen" : ""}`}
              aria-pressed={choice?.type === "launcher" && choice.id === launcher.id}
              data-launcher={launcher.id}
              onClick={() => { setChoice({ type: "launcher", id: launcher.id }); }}
            >
              <span className="launcher__name">
                {launcher.name} <span className="muted">{launcher.registry_version}</span>
              </span>
              <LauncherStatus launcher={launcher} />
              <span className="launcher__description">{launcher.description}</span>
            </button>
          </li>
        ))}
        <li>
          <button
            type="button"
            className={`launcher${choice?.type === "custom" ? " launcher--chosen" : ""}`}
            aria-pressed={choice?.type === "custom"}
            data-launcher="custom"
            onClick={() => { setChoice({ type: "custom" }); }}
          >
            <span className="launcher__name">Custom command</span>
            <span className="launcher__description">Any ACP agent: its executable and arguments, never a shell string.</span>
          </button>
        </li>
      </ul>
      {choice?.type === "custom" && (
        <div className="field">
          <label htmlFor={customId} className="field__label">
            Command — one argument per line, or a JSON array
          </label>
          <textarea
            id={customId}
            className="input mono custom-command"
            rows={3}
            spellCheck={false}
            placeholder={"/usr/local/bin/my-agent\n--acp"}
            value={custom}
            onChange={(e) => { setCustom(e.target.value); }}
          />
          {custom.trim() !== "" && !parsed.ok && <p className="field__error">{parsed.error}</p>}
          {parsed.ok && parsed.warnings.map((w) => <p key={w} className="field__warning">{w}</p>)}
        </div>
      )}
      {chosen && !request && (
        <p className="field__error">
          {chosen.status.kind === "not_installed"
            ? `${chosen.name} is not installed: ${chosen.status.missing}`
            : chosen.status.kind === "rejected"
              ? `Somite will not start ${chosen.name}: ${chosen.status.reason}`
              : ""}
        </p>
      )}
      {preview && (
        <div className="command-preview" data-testid="command-preview">
          <p className="field__label">This will run, without a shell:</p>
          <ol className="argv">
            {preview.map((token, index) => (
              // Tokens may repeat; their position is their identity.
              <li key={index}>
                <code>{token}</code>
              </li>
            ))}
          </ol>
          {env.length > 0 && <p className="muted">With the registry's variables {env.join(", ")}.</p>}
        </div>
      )}
      <button
        type="button"
        className="button button--primary"
        disabled={!request || connecting}
        onClick={() => { if (request) onConnect(request); }}
      >
        {connecting ? "Connecting…" : "Connect"}
      </button>
    </div>
  );
}

function LauncherStatus({ launcher }: { launcher: Launcher }) {
  const status = launcher.status;
  switch (status.kind) {
    case "installed":
      return <span className="tag tag--success">Installed</span>;
    case "package":
      return <span className="tag">Runs via {status.runner}</span>;
    case "not_installed":
      return <span className="tag tag--muted" title={status.archive ?? undefined}>Not installed · needs {status.missing}</span>;
    case "rejected":
      return <span className="tag tag--danger" title={status.reason}>Rejected</span>;
  }
}

function sortLaunchers(list: LauncherList): Launcher[] {
  return [...list.launchers].sort((a, b) => STATUS_ORDER[a.status.kind] - STATUS_ORDER[b.status.kind]);
}

function registryLabel(registry: LauncherList["registry"]): string {
  if (registry.kind === "bundled_fallback") return `From Somite's bundled registry snapshot (${registry.reason ?? "the live registry was unavailable"}).`;
  const name = registry.name ?? registry.source;
  return name ? `From the ACP registry: ${name}.` : "From the ACP registry.";
}
