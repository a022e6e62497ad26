-- AlterTable
ALTER TABLE "Agent" ADD COLUMN     "inputs" JSONB;
