-- CreateTable
CREATE TABLE "AlertRule" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "clusterId" TEXT,
    "builtin" TEXT,
    "name" TEXT NOT NULL,
    "series" TEXT NOT NULL,
    "aggregation" TEXT NOT NULL DEFAULT 'node',
    "comparison" TEXT NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "forS" INTEGER NOT NULL DEFAULT 0,
    "keepFiringForS" INTEGER NOT NULL DEFAULT 0,
    "severity" TEXT NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "summary" TEXT NOT NULL DEFAULT '',
    "runbookUrl" TEXT NOT NULL DEFAULT '',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AlertRule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertInstance" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "ruleId" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "state" TEXT NOT NULL DEFAULT 'inactive',
    "severity" TEXT NOT NULL,
    "summary" TEXT NOT NULL DEFAULT '',
    "value" DOUBLE PRECISION,
    "activeAt" TIMESTAMP(3),
    "firedAt" TIMESTAMP(3),
    "resolvedAt" TIMESTAMP(3),
    "lastTrueAt" TIMESTAMP(3),
    "ackedBy" TEXT,
    "ackedAt" TIMESTAMP(3),
    "escalatedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AlertInstance_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertEvent" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "instanceId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "fromState" TEXT,
    "toState" TEXT,
    "value" DOUBLE PRECISION,
    "message" TEXT NOT NULL DEFAULT '',
    "actor" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AlertEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Silence" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "clusterId" TEXT,
    "nodeId" INTEGER,
    "ruleId" TEXT,
    "startsAt" TIMESTAMP(3) NOT NULL,
    "endsAt" TIMESTAMP(3) NOT NULL,
    "createdBy" TEXT NOT NULL,
    "comment" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Silence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NotificationChannel" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "config" JSONB NOT NULL DEFAULT '{}',
    "secret" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NotificationChannel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertRoute" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "clusterId" TEXT,
    "severity" TEXT NOT NULL,
    "channelIds" TEXT[],
    "escalateAfterMin" INTEGER,
    "escalationChannelIds" TEXT[],

    CONSTRAINT "AlertRoute_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertSettings" (
    "organizationId" TEXT NOT NULL,
    "groupWaitS" INTEGER NOT NULL DEFAULT 30,
    "groupIntervalS" INTEGER NOT NULL DEFAULT 300,
    "repeatIntervalS" INTEGER NOT NULL DEFAULT 14400,

    CONSTRAINT "AlertSettings_pkey" PRIMARY KEY ("organizationId")
);

-- CreateTable
CREATE TABLE "NotificationGroup" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "escalation" BOOLEAN NOT NULL DEFAULT false,
    "notifiedIds" TEXT[],
    "firstSeenAt" TIMESTAMP(3),
    "lastSentAt" TIMESTAMP(3),

    CONSTRAINT "NotificationGroup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Delivery" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "groupId" TEXT,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Delivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PushSubscription" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "p256dh" TEXT NOT NULL,
    "auth" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PushSubscription_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AlertRule_organizationId_idx" ON "AlertRule"("organizationId");

-- CreateIndex
CREATE UNIQUE INDEX "AlertRule_organizationId_clusterId_builtin_key" ON "AlertRule"("organizationId", "clusterId", "builtin");

-- CreateIndex
CREATE INDEX "AlertInstance_organizationId_state_idx" ON "AlertInstance"("organizationId", "state");

-- CreateIndex
CREATE INDEX "AlertInstance_organizationId_clusterId_idx" ON "AlertInstance"("organizationId", "clusterId");

-- CreateIndex
CREATE UNIQUE INDEX "AlertInstance_ruleId_clusterId_key_key" ON "AlertInstance"("ruleId", "clusterId", "key");

-- CreateIndex
CREATE INDEX "AlertEvent_instanceId_at_idx" ON "AlertEvent"("instanceId", "at");

-- CreateIndex
CREATE INDEX "AlertEvent_organizationId_at_idx" ON "AlertEvent"("organizationId", "at");

-- CreateIndex
CREATE INDEX "Silence_organizationId_endsAt_idx" ON "Silence"("organizationId", "endsAt");

-- CreateIndex
CREATE UNIQUE INDEX "NotificationChannel_organizationId_name_key" ON "NotificationChannel"("organizationId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "AlertRoute_organizationId_clusterId_severity_key" ON "AlertRoute"("organizationId", "clusterId", "severity");

-- CreateIndex
CREATE INDEX "NotificationGroup_organizationId_idx" ON "NotificationGroup"("organizationId");

-- CreateIndex
CREATE UNIQUE INDEX "NotificationGroup_channelId_clusterId_escalation_key" ON "NotificationGroup"("channelId", "clusterId", "escalation");

-- CreateIndex
CREATE INDEX "Delivery_status_nextAttemptAt_idx" ON "Delivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "Delivery_channelId_createdAt_idx" ON "Delivery"("channelId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "PushSubscription_endpoint_key" ON "PushSubscription"("endpoint");

-- CreateIndex
CREATE INDEX "PushSubscription_organizationId_userId_idx" ON "PushSubscription"("organizationId", "userId");

-- AddForeignKey
ALTER TABLE "AlertRule" ADD CONSTRAINT "AlertRule_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertRule" ADD CONSTRAINT "AlertRule_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertInstance" ADD CONSTRAINT "AlertInstance_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertInstance" ADD CONSTRAINT "AlertInstance_ruleId_fkey" FOREIGN KEY ("ruleId") REFERENCES "AlertRule"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertInstance" ADD CONSTRAINT "AlertInstance_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertEvent" ADD CONSTRAINT "AlertEvent_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertEvent" ADD CONSTRAINT "AlertEvent_instanceId_fkey" FOREIGN KEY ("instanceId") REFERENCES "AlertInstance"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Silence" ADD CONSTRAINT "Silence_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationChannel" ADD CONSTRAINT "NotificationChannel_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertRoute" ADD CONSTRAINT "AlertRoute_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertRoute" ADD CONSTRAINT "AlertRoute_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertSettings" ADD CONSTRAINT "AlertSettings_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationGroup" ADD CONSTRAINT "NotificationGroup_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Delivery" ADD CONSTRAINT "Delivery_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Delivery" ADD CONSTRAINT "Delivery_channelId_fkey" FOREIGN KEY ("channelId") REFERENCES "NotificationChannel"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PushSubscription" ADD CONSTRAINT "PushSubscription_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PushSubscription" ADD CONSTRAINT "PushSubscription_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;
