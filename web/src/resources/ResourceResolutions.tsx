import { useEffect, useState } from "react";
import type { SyntheticEvent } from "react";
import type { ResourceResolution, Resolutions } from "../api/resourceSchemas";
import type { ReadinessItem } from "../api/types";
import { formatBytes } from "../readiness/resolutions";
import { FailureBlock } from "../shell/FailureBlock";
import { useResourceState, useServices } from "../shell/context";
import type { Failure } from "../state/controls";
import { toFailure } from "../state/controls";
import type { BindingTarget } from "../state/resources";
import { jobIsActive } from "../state/resources";
import { ConsentDialog } from "./ConsentDialog";
import { InstallProgress } from "./InstallProgress";
import type { InstallOffer, InstallResolution } from "./offer";
import { consentFor, offerFor } from "./offer";
import { providingOperator } from "./useBindResource";
import "./resources.css";

export interface ResourceResolutionsProps {
  readonly item: ReadinessItem;
  /** The resource profile of the item's input, e.g. `kraken2-database`. */
  readonly profile: string;
  /** Binds the requirement to an installed resource's reference or a folder. */
  readonly onBind: (target: BindingTarget, value: string) => Promise<boolean>;
}

/**
 * The ways to provide a managed resource, best first as the runtime orders
 * them: an installed resource, installing a reviewed provider (after the
 * consent dialog), a folder already on this machine (its structure checked),
 * or leaving the requirement explicit. Nothing downloads without consent.
 */
export function ResourceResolutions({ item, profile, onBind }: ResourceResolutionsProps) {
  const { resources } = useServices();
  const state = useResourceState();
  const [offer, setOffer] = useState<InstallOffer | undefined>();
  const entry = state.resolutions.get(profile);
  const operatorId = providingOperator(item);
  const target: BindingTarget | undefined =
    item.node_id && item.field && operatorId ? { itemId: item.id, nodeId: item.node_id, field: item.field, operatorId } : undefined;

  useEffect(() => {
    if (!resources.getState().resolutions.has(profile)) void resources.loadResolutions(profile);
    if (!resources.getState().overview) void resources.loadOverview();
  }, [profile, resources]);

  if (!entry || entry.status === "loading") return <p className="muted resource-options__loading">Reading the resources Somite can provide…</p>;
  if (entry.status === "failed") return <FailureBlock failure={entry.error} />;
  const reply = entry.value;
  return (
    <section className="resource-options" aria-label={`Ways to provide ${profile}`} data-profile={profile}>
      <ol className="resource-options__list">
        {reply.resolutions.map((resolution) => (
          <li key={resolutionKey(resolution)} className={`resource-option resource-option--${resolution.kind}`} data-resolution={resolution.kind} data-provider={providerOf(resolution)}>
            {resolution.kind === "installed" && (
              <Installed resolution={resolution} onUse={target ? () => void onBind(target, resolution.reference) : undefined} />
            )}
            {resolution.kind === "install" && (
              <Install resolution={resolution} reply={reply} onChoose={setOffer} />
            )}
            {resolution.kind === "use_existing" && (
              <UseExisting profile={profile} resolution={resolution} onUse={target ? (path) => onBind(target, path) : undefined} />
            )}
            {resolution.kind === "requirement" && <p className="resource-option__title muted">{resolution.title} (nothing to do now).</p>}
          </li>
        ))}
      </ol>
      {offer && (
        <ConsentDialog
          offer={offer}
          onClose={() => { setOffer(undefined); }}
          onConsent={(shown) => {
            setOffer(undefined);
            void resources.install(shown.provider.id, consentFor(shown), target);
          }}
        />
      )}
    </section>
  );
}

function resolutionKey(resolution: ResourceResolution): string {
  switch (resolution.kind) {
    case "installed":
      return `installed:${resolution.reference}`;
    case "install":
      return `install:${resolution.provider.id}`;
    default:
      return resolution.kind;
  }
}

function providerOf(resolution: ResourceResolution): string | undefined {
  if (resolution.kind === "installed") return resolution.provider_id;
  if (resolution.kind === "install") return resolution.provider.id;
  return undefined;
}

function Installed({ resolution, onUse }: { resolution: Extract<ResourceResolution, { kind: "installed" }>; onUse: (() => void) | undefined }) {
  return (
    <>
      <p className="resource-option__title">
        {resolution.title} <span className="tag tag--installed">installed</span>
      </p>
      <p className="option__sizes">
        Stored {formatBytes(resolution.stored_bytes)}
        {resolution.memory_bytes !== null && <> · Needs {formatBytes(resolution.memory_bytes)} of memory</>}
      </p>
      <p className="option__effect">{resolution.scientific_effect}</p>
      <p className="mono resource-option__reference">{resolution.reference}</p>
      {onUse && (
        <button type="button" className="button button--small button--primary" onClick={onUse}>
          Use this database
        </button>
      )}
    </>
  );
}

function Install({ resolution, reply, onChoose }: { resolution: InstallResolution; reply: Resolutions; onChoose: (offer: InstallOffer) => void }) {
  const { resources } = useServices();
  const state = useResourceState();
  const { provider } = resolution;
  const job = state.jobs.get(provider.id);
  const refusal = state.refusals.get(provider.id);
  const result = offerFor(resolution, reply);
  const running = jobIsActive(job);
  return (
    <>
      <p className="resource-option__title">
        {provider.title} <span className="muted">({provider.release})</span>
        {provider.recommended && <span className="tag tag--recommended">recommended</span>}
        {provider.test_only && <span className="tag tag--test">test only</span>}
        {resolution.fits_disk === false && <span className="tag tag--warning">not enough disk</span>}
        {resolution.fits_memory === false && <span className="tag tag--warning">more memory than this machine</span>}
      </p>
      {(provider.download_bytes !== null || provider.stored_bytes !== null || provider.memory_bytes !== null) && (
        <p className="option__sizes">
          {[
            provider.download_bytes !== null && `Download ${formatBytes(provider.download_bytes)}`,
            provider.stored_bytes !== null && `Stored ${formatBytes(provider.stored_bytes)}`,
            provider.memory_bytes !== null && `Memory ${formatBytes(provider.memory_bytes)}`,
          ]
            .filter(Boolean)
            .join(" · ")}
        </p>
      )}
      <p className="option__effect">{provider.scientific_effect}</p>
      {job && (job.state !== "installed" || running) && (
        <InstallProgress job={job} title={provider.title} onCancel={(keep) => void resources.cancel(provider.id, keep)} />
      )}
      {refusal && (
        <FailureBlock failure={refusal} onDismiss={() => { resources.dismissRefusal(provider.id); }} />
      )}
      {result.ok ? (
        !running && (
          <button type="button" className="button button--small" onClick={() => { onChoose(result.offer); }}>
            Install…
          </button>
        )
      ) : (
        <p className="resource-option__refused" data-code="resource_unverified">
          Somite will not install it: {result.reason}
        </p>
      )}
    </>
  );
}

function UseExisting({
  profile,
  resolution,
  onUse,
}: {
  profile: string;
  resolution: Extract<ResourceResolution, { kind: "use_existing" }>;
  onUse: ((path: string) => Promise<boolean>) | undefined;
}) {
  const { resources } = useServices();
  const [path, setPath] = useState("");
  const [verdict, setVerdict] = useState<string | undefined>();
  const [failure, setFailure] = useState<Failure | undefined>();
  const [checking, setChecking] = useState(false);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (!onUse || path.trim() === "") return;
    setChecking(true);
    setVerdict(undefined);
    setFailure(undefined);
    void (async () => {
      try {
        const check = await resources.checkDirectory(profile, path.trim());
        if (check.ok) {
          if (await onUse(check.path)) setPath("");
        } else {
          setVerdict(`${check.path} is missing ${check.missing.join(", ")}.`);
        }
      } catch (error) {
        setFailure(toFailure(error));
      } finally {
        setChecking(false);
      }
    })();
  };
  return (
    <>
      <p className="resource-option__title">{resolution.title}</p>
      <p className="option__sizes">It must hold {resolution.required_files.join(", ")}.</p>
      {onUse && (
        <form className="resource-option__folder" onSubmit={submit}>
          <input
            className="input"
            type="text"
            aria-label="Database folder on this machine"
            placeholder="/absolute/path/to/database"
            value={path}
            onChange={(event) => { setPath(event.target.value); }}
          />
          <button type="submit" className="button button--small" disabled={checking || path.trim() === ""}>
            Check and use
          </button>
        </form>
      )}
      {verdict && (
        <p className="resource-option__verdict" role="alert">
          {verdict}
        </p>
      )}
      {failure && <FailureBlock failure={failure} onDismiss={() => { setFailure(undefined); }} />}
    </>
  );
}
