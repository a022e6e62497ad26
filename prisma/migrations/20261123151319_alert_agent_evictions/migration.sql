-- CreateTable
CREATE TABLE "AlertAgentEvictions" (
    "agentId" TEXT NOT NULL,
    "evictions" INTEGER NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AlertAgentEvictions_pkey" PRIMARY KEY ("agentId")
);
