import { getOpenApiDocument } from '@clusterscope/api';
console.log(JSON.stringify(getOpenApiDocument('http://x')));
