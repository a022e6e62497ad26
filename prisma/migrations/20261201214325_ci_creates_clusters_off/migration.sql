-- AlterTable
ALTER TABLE "organization" ALTER COLUMN "autoCreateClusters" SET DEFAULT false;
