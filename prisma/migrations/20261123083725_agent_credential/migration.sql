/*
  Warnings:

  - A unique constraint covering the columns `[agentId]` on the table `ApiToken` will be added. If there are existing duplicate values, this will fail.

*/
-- AlterTable
ALTER TABLE "ApiToken" ADD COLUMN     "agentId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_agentId_key" ON "ApiToken"("agentId");

-- AddForeignKey
ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;
