/*
  Warnings:

  - A unique constraint covering the columns `[organizationId,userId,endpoint]` on the table `PushSubscription` will be added. If there are existing duplicate values, this will fail.

*/
-- DropIndex
DROP INDEX "PushSubscription_endpoint_key";

-- CreateIndex
CREATE UNIQUE INDEX "PushSubscription_organizationId_userId_endpoint_key" ON "PushSubscription"("organizationId", "userId", "endpoint");
