import { useState } from "react";
import type { JobStatus } from "../api/resourceSchemas";
import { FailureBlock } from "../shell/FailureBlock";
import { jobIsActive } from "../state/resources";
import { JOB_STATE_LABELS, progressText } from "./offer";

export interface InstallProgressProps {
  readonly job: JobStatus;
  readonly title: string;
  readonly onCancel: (keepPartial: boolean) => void;
}

/**
 * One install as it goes: state, a bar of bytes (indeterminate while the
 * size is unknown), rate and time left; Cancel asks whether to keep the
 * partial download for a later resume or remove it. A finished job says how
 * it ended — a failure with its code and recovery.
 */
export function InstallProgress({ job, title, onCancel }: InstallProgressProps) {
  const [confirming, setConfirming] = useState(false);
  const active = jobIsActive(job);
  const total = job.bytes_total ?? undefined;
  const percent = total ? Math.min(100, Math.round((job.bytes_done / total) * 100)) : undefined;
  return (
    <div className={`install install--${job.state}`} data-testid="resource-job" data-provider={job.provider_id} data-state={job.state}>
      <p className="install__state">
        <span className="install__label">{JOB_STATE_LABELS[job.state]}</span> {title}
      </p>
      <div
        className="progress__bar install__bar"
        role="progressbar"
        aria-label={`Install progress of ${title}`}
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={total === undefined ? undefined : job.bytes_done}
        aria-valuetext={progressText(job)}
      >
        <span className="progress__fill" style={{ width: `${String(percent ?? (job.state === "installed" ? 100 : 0))}%` }} />
      </div>
      <p className="install__text" data-testid="resource-progress">
        {progressText(job)}
      </p>
      {job.state === "cancelled" && job.partial_kept !== null && (
        <p className="muted">{job.partial_kept ? "The partial download was kept; installing again resumes it." : "The partial download was removed."}</p>
      )}
      {job.error && <FailureBlock failure={{ code: job.error.code, title: job.error.message, detail: job.error.recovery }} />}
      {active && !confirming && (
        <button type="button" className="button button--small" onClick={() => { setConfirming(true); }}>
          Cancel
        </button>
      )}
      {active && confirming && (
        <div className="install__cancel" role="group" aria-label="Cancel the install">
          <button type="button" className="button button--small" onClick={() => { onCancel(true); }}>
            Cancel, keep the partial download
          </button>
          <button type="button" className="button button--small button--danger" onClick={() => { onCancel(false); }}>
            Cancel and remove it
          </button>
          <button type="button" className="button button--small button--ghost" onClick={() => { setConfirming(false); }}>
            Go on
          </button>
        </div>
      )}
    </div>
  );
}
