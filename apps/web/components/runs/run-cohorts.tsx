import type { RunView } from "@throng/protocol/run";
import { cohortRows } from "../../lib/runs/cohort-table";
import { DataTable, type DataColumn } from "../ui/data-table";

const COLUMNS: readonly DataColumn[] = [
  "Cohort",
  { label: "Clients", numeric: true, title: "The cohort's peak clients" },
  { label: "RTT p50", numeric: true },
  { label: "RTT p99", numeric: true },
  { label: "Loss", numeric: true, title: "Messages or broadcasts lost of those expected, over the cohort's clients" },
  { label: "Dropped by its network", numeric: true, title: "Packets its conditions dropped, of those that met them" },
  { label: "Retransmits", numeric: true, title: "KCP's retransmissions, or TCP's own (TCP_INFO) on the kernel path" },
  "Applied",
];

/** Each network cohort's own figures over the whole run (docs/networks.md); nothing for a plan without cohorts. */
export function RunCohorts({ run }: { run: RunView }) {
  const rows = cohortRows(
    run.summary,
    (run.spec.network ?? []).map((cohort) => cohort.name),
  );
  if (rows.length === 0) return null;
  return (
    <div data-testid="run-cohorts">
      <h3>Network cohorts</h3>
      <DataTable caption="Each network cohort's figures over the run" columns={COLUMNS}>
        {rows.map((row) => (
          <tr key={row.name} data-testid="cohort-row" data-cohort={row.name}>
            <th scope="row">{row.name}</th>
            <td className="num">{row.clients}</td>
            <td className="num">{row.rttP50}</td>
            <td className="num">{row.rttP99}</td>
            <td className="num">{row.loss}</td>
            <td className="num">{row.dropped}</td>
            <td className="num">{row.retransmits}</td>
            <td>
              {row.appliedAboveStream ? (
                <span
                  className="badge warn"
                  title="TCP saw the rig's round trip, so it recovered faster than on the network asked for"
                >
                  {row.applied}
                </span>
              ) : (
                row.applied
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
