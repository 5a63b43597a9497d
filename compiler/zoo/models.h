#pragma once
// The zoo's model definitions, one file per family; zoo.cpp registers each under its name.
// Each adds the batch, the network and the loss to the builder's graph.

#include "compiler/zoo/model_builder.h"

namespace s2::zoo {

void build_mlp(ModelBuilder& b);       // mlp.cpp
void build_lenet5(ModelBuilder& b);    // lenet5.cpp
void build_resnet18(ModelBuilder& b);  // resnet.cpp
void build_resnet34(ModelBuilder& b);
void build_resnet50(ModelBuilder& b);
void build_vgg11(ModelBuilder& b);            // vgg.cpp
void build_mobilenet_v2(ModelBuilder& b);     // mobilenet.cpp
void build_efficientnet_b0(ModelBuilder& b);  // efficientnet.cpp
void build_densenet121(ModelBuilder& b);      // densenet.cpp
void build_gpt(ModelBuilder& b);              // gpt.cpp: gpt, gpt2-small
void build_bert(ModelBuilder& b);             // bert.cpp: bert, bert-base
void build_vit(ModelBuilder& b);              // vit.cpp: vit, vit_b_16

}  // namespace s2::zoo
