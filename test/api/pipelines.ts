/** Two stages, `build` then `test`, one golang step each: the API tests' usual pushed pipeline. */
export const BUILD_AND_TEST = `kind: pipeline
type: docker
name: build
steps:
- name: compile
  image: golang
  commands: [go build]
---
kind: pipeline
type: docker
name: test
depends_on: [build]
steps:
- name: unit
  image: golang
  commands: [go test]
`;
