-- AlterTable
ALTER TABLE "organization" ADD COLUMN     "autoCreateClusters" BOOLEAN NOT NULL DEFAULT true;
