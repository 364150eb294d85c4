import { useEffect } from "react";
import { formatBytes } from "../readiness/resolutions";
import { FailureBlock } from "../shell/FailureBlock";
import { useResourceState, useServices } from "../shell/context";
import { jobIsActive } from "../state/resources";
import { InstallProgress } from "./InstallProgress";
import "./resources.css";

/**
 * The managed resources in this machine's store, with their verified
 * identity (reference, archive checksum, tree digest) and any install under
 * way — the "Project tools" list of what a workflow can be bound to.
 */
export function InstalledResources() {
  const { resources } = useServices();
  const state = useResourceState();
  useEffect(() => {
    void resources.loadOverview();
  }, [resources]);

  const overview = state.overview;
  if (!overview || overview.status === "loading") return <p className="muted">Reading the resource store…</p>;
  if (overview.status === "failed") return <FailureBlock failure={overview.error} />;
  const { installed, providers, store_dir: storeDir } = overview.value;
  const titles = new Map(providers.map((p) => [p.id, p.title]));
  const running = [...state.jobs.values()].filter(jobIsActive);
  return (
    <section className="installed-resources" aria-label="Installed resources" data-testid="installed-resources">
      <h3 className="installed-resources__title">Installed resources</h3>
      {installed.length === 0 && running.length === 0 && <p className="muted">None yet. Install one from a requirement that needs it.</p>}
      <ul className="installed-resources__list">
        {installed.map((resource) => (
          <li key={resource.reference} className="installed-resource" data-reference={resource.reference} data-verified={resource.verified}>
            <p className="installed-resource__title">
              {titles.get(resource.provider_id) ?? resource.provider_id}
              {resource.verified ? (
                <span className="tag tag--recommended">verified</span>
              ) : (
                <span className="tag tag--warning">changed since install</span>
              )}
            </p>
            <dl className="facts installed-resource__facts">
              <dt>Reference</dt>
              <dd className="mono">{resource.reference}</dd>
              <dt>Stored</dt>
              <dd>{formatBytes(resource.stored_bytes)}</dd>
              <dt>Checksum</dt>
              <dd className="mono">
                {resource.checksum.algorithm}:{resource.checksum.value}
              </dd>
              <dt>Tree</dt>
              <dd className="mono">{resource.tree_digest}</dd>
              <dt>Installed</dt>
              <dd>{resource.installed_at}</dd>
              <dt>Folder</dt>
              <dd className="mono">{resource.path}</dd>
            </dl>
          </li>
        ))}
      </ul>
      {running.map((job) => (
        <InstallProgress key={job.provider_id} job={job} title={titles.get(job.provider_id) ?? job.provider_id} onCancel={(keep) => void resources.cancel(job.provider_id, keep)} />
      ))}
      <p className="muted installed-resources__store">
        Store: <span className="mono">{storeDir}</span>
      </p>
    </section>
  );
}
