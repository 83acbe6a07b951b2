import type { Db } from "./client";
import { createErrorSampleRepo } from "./repos/error-samples";
import { createFleetRepo } from "./repos/fleet";
import { createOrgRepo } from "./repos/orgs";
import { createMetricsExportRepo } from "./repos/metrics-export";
import { createNotificationRepo } from "./repos/notifications";
import { createPlanRepo } from "./repos/plans";
import { createPlanScheduleRepo } from "./repos/plan-schedules";
import { createReportRepo } from "./repos/reports";
import { createRoomsRepo } from "./repos/rooms";
import { createRunRepo } from "./repos/runs";
import { createScriptRepo } from "./repos/scripts";
import { createSearchStepRepo } from "./repos/search-steps";
import { createSecretRepo } from "./repos/secrets";
import { createSecurityRepo } from "./repos/security";
import { createServerSampleRepo } from "./repos/server-samples";
import { createSnapshotRepo } from "./repos/snapshots";
import { createSsoRepo } from "./repos/sso";

/** Every repository over one Kysely instance; composed once in each app's main.ts. */
export function createRepos(db: Db) {
  return {
    orgs: createOrgRepo(db),
    plans: createPlanRepo(db),
    fleet: createFleetRepo(db),
    runs: createRunRepo(db),
    searchSteps: createSearchStepRepo(db),
    snapshots: createSnapshotRepo(db),
    serverSamples: createServerSampleRepo(db),
    errorSamples: createErrorSampleRepo(db),
    rooms: createRoomsRepo(db),
    security: createSecurityRepo(db),
    reports: createReportRepo(db),
    scripts: createScriptRepo(db),
    notifications: createNotificationRepo(db),
    planSchedules: createPlanScheduleRepo(db),
    metricsExport: createMetricsExportRepo(db),
    secrets: createSecretRepo(db),
    sso: createSsoRepo(db),
    /** For GET /health. */
    async ping(): Promise<void> {
      await db.selectNoFrom((eb) => eb.val(1).as("one")).execute();
    },
  };
}
export type Repos = ReturnType<typeof createRepos>;
